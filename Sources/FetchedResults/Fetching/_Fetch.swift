import Foundation
import TableDiff

/// A fetch request made ready: readers resolved, predicate ready.
struct _CompiledRequest<R: Record & Codable> {
    let request: FetchRequest<R>
    let matches: ((R) throws(FetchError) -> Bool)?
    let sortReaders: [RecordReader<R>]
    let sectionReader: RecordReader<R>?

    init(_ request: FetchRequest<R>, sectionKeyPath: String?) throws(FetchError) {
        self.request = request
        matches = request.predicate?.evaluator()
        let keys = R.recordKeys
        do throws(RecordKeyError) {
            sortReaders = try request.sortKeys.map { key throws(RecordKeyError) in try keys.reader(forKeyPath: key.keyPath) }
            sectionReader = try sectionKeyPath.map { path throws(RecordKeyError) in try keys.reader(forKeyPath: path) }
        } catch {
            throw .unknownKey(error)
        }
    }

    /// The sort values of a record, one per sort key.
    func sortValues(_ record: R) -> [_SortValue] {
        zip(sortReaders, request.sortKeys).map { _SortValue($0(record), comparison: $1.comparison) }
    }

    func sectionName(_ record: R) -> String {
        guard let sectionReader else { return "" }
        return _sectionName(sectionReader(record))
    }

    /// -1, 0 or 1: the order of two elements by sort values, then sequence.
    func compare(_ a: [_SortValue], _ sa: Int64, _ b: [_SortValue], _ sb: Int64) -> Int {
        for (k, key) in request.sortKeys.enumerated() {
            let c = _SortValue.compare(a[k], b[k])
            if c != 0 { return key.ascending ? c : -c }
        }
        return sa < sb ? -1 : (sa > sb ? 1 : 0)
    }
}

/// A section's name from its key's value: a string as it is, nil as "", other
/// values as they print.
func _sectionName(_ value: RecordValue) -> String {
    switch value {
    case .string(let s): return s
    case .null: return ""
    case .date(let d): return ISO8601.string(from: d)
    case .int(let i): return String(i)
    case .double(let d): return Int(exactly: d).map(String.init) ?? "\(d)"
    case .bool(let b): return b ? "true" : "false"
    default: return JSON.string(value)
    }
}

/// The matches of a request, sorted, with what a controller keeps of them.
struct _FetchResult<R: Record> {
    var records: [R]
    var sequences: [Int64]
    var sortValues: [[_SortValue]]
    var sectionNames: [String]

    var sortedRecords: [R] { records }
}

enum _Fetch {
    /// Evaluates, orders and names the sections of every record the context sees.
    ///
    /// - Complexity: O(*n* + *m* log *m*) for *n* records and *m* matches.
    static func run<R: Record & Codable>(_ compiled: _CompiledRequest<R>, in context: ObjectContext<R>) throws(FetchError) -> _FetchResult<R> {
        var records: [R] = [], sequences: [Int64] = [], values: [[_SortValue]] = [], names: [String] = []
        let sectioned = compiled.sectionReader != nil
        try context.forEachRecord { record, sequence throws(FetchError) in
            if let matches = compiled.matches, try !matches(record) { return }
            records.append(record)
            sequences.append(sequence)
            values.append(compiled.sortValues(record))
            if sectioned { names.append(compiled.sectionName(record)) }
        }
        var order = Array(0..<records.count)
        order.sort { compiled.compare(values[$0], sequences[$0], values[$1], sequences[$1]) < 0 }
        return _FetchResult(
            records: order.map { records[$0] }, sequences: order.map { sequences[$0] },
            sortValues: order.map { values[$0] }, sectionNames: sectioned ? order.map { names[$0] } : [])
    }
}
