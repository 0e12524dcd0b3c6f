/// A selection of objects by identity: some objects, or every object but
/// some — so that selecting all of a million rows, counting the selection
/// and asking whether an object is in it cost O(1) (TanStack Table's row
/// selection by row id, with its "all but these").
///
/// `ids` holds only objects of the results (the binding takes out each one
/// that leaves them): with every object but some, the count is the results'
/// less those left out.
struct _IdentitySelection<ID: Hashable> {
    enum Mode: Hashable { case only, allBut }

    /// Which objects `ids` names: the selected ones, or those left out of a
    /// selection of every object.
    private(set) var mode = Mode.only
    /// The selected objects (`only`), or those left out (`allBut`).
    private(set) var ids = Set<ID>()

    /// No object selected.
    init() {}

    init(mode: Mode, ids: Set<ID>) {
        self.mode = mode
        self.ids = ids
    }

    /// Whether an object of the results is selected.
    func contains(_ id: ID) -> Bool { (mode == .only) == ids.contains(id) }

    /// The number selected, of `total` objects in the results.
    func count(of total: Int) -> Int { mode == .only ? ids.count : total - ids.count }

    /// Whether no object is selected, whatever the results (none named, not
    /// every object but some).
    var isNone: Bool { mode == .only && ids.isEmpty }

    /// Whether no object is selected, of `total`.
    func isEmpty(of total: Int) -> Bool { count(of: total) == 0 }

    mutating func insert(_ id: ID) {
        if mode == .only { ids.insert(id) } else { ids.remove(id) }
    }

    mutating func remove(_ id: ID) {
        if mode == .only { ids.remove(id) } else { ids.insert(id) }
    }

    /// Every object of the results, and those that come later not.
    mutating func selectAll() {
        mode = .allBut
        ids = []
    }

    mutating func removeAll() {
        mode = .only
        ids = []
    }

    /// An object left the results: it is no longer selected (nor left out).
    mutating func objectLeft(_ id: ID) { ids.remove(id) }

    /// An object came into the results: it is not selected.
    mutating func objectArrived(_ id: ID) {
        if mode == .allBut { ids.insert(id) }
    }
}
