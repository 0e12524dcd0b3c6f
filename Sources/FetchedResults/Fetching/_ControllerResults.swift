import RecordStore
import Records
import TableDiff

/// A fetched results controller's results and all it derives from them, as
/// one value: each fetch replaces it whole (`didFetch`), so that nothing the
/// last results left — sections, their starts, index titles, batches read,
/// the last change's error — can outlive them; the changes the controller
/// follows update it in place, through the methods below where the sections
/// and their starts must move together.
///
/// Its invariants are the controller's (`FetchedResultsController._checkInvariants()`).
@usableFromInline
struct _ControllerResults<R: Record & Codable> {
    /// The request fetched, made ready; nil before a successful fetch.
    @usableFromInline var compiled: _CompiledRequest<R>?
    /// The objects, in order.
    @usableFromInline var ordered = _OrderedElements<R>()
    /// The sections: each one's name and number of objects, in order.
    @usableFromInline var sectionList: [_SectionRun] = []
    /// Where each section starts among the objects, and (last) the number of objects.
    @usableFromInline var sectionStarts: [Int] = [0]
    /// Whether a change made the first sort key stop ordering the sections (a name in two runs).
    @usableFromInline var sectionsRepeatNames = false
    /// The section index titles, kept until the sections or the delegate change.
    @usableFromInline var cachedIndexTitles: [String]?
    /// Records read on demand, by batch (batch size only); cleared on every change.
    var batchCache = _BatchCache<R>(capacity: 4)
    /// The error the last change ran into (the controller's `lastError`).
    @usableFromInline var lastError: FetchError?

    /// No results: before a fetch.
    @usableFromInline init() {}

    /// A fetch's results: its request, its objects in order, its sections.
    @usableFromInline
    init(_ compiled: _CompiledRequest<R>, _ ordered: consuming _OrderedElements<R>, sections: [_SectionRun]) {
        self.compiled = compiled
        self.ordered = ordered
        sectionList = sections
        recomputeStarts()
    }

    /// The section starts, from the sections. O(*s*).
    mutating func recomputeStarts() {
        sectionStarts = [0]
        sectionStarts.reserveCapacity(sectionList.count + 1)
        for section in sectionList { sectionStarts.append(sectionStarts[sectionStarts.count - 1] + section.count) }
    }

    /// The sections from the order: its runs of one section name (one
    /// section "" when not `keyed`), and their starts. O(*c* + *s*).
    mutating func rebuildSections(keyed: Bool) {
        sectionList = keyed ? ordered.sectionRuns : [_SectionRun(name: "", count: ordered.count)]
        recomputeStarts()
    }

    /// The object at `position` left the order: the sections follow
    /// (`_RunList.remove(at:runs:starts:)`).
    mutating func sectionsRemove(at position: Int) {
        _RunList.remove(at: position, runs: &sectionList, starts: &sectionStarts)
    }

    /// An object of section `name` arrived at `position` in the order: the
    /// sections follow (`_RunList.insert(_:at:runs:starts:)`).
    mutating func sectionsInsert(_ name: String, at position: Int) {
        _RunList.insert(name, at: position, runs: &sectionList, starts: &sectionStarts)
    }
}
