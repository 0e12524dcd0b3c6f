import Foundation
import TableDiff

/// A fetch request made ready: readers resolved, predicate ready.
@usableFromInline
struct _CompiledRequest<R: Record & Codable> {
    @usableFromInline let request: FetchRequest<R>
    @usableFromInline let matches: ((R) throws(FetchError) -> Bool)?
    @usableFromInline let sortReaders: [RecordReader<R>]
    @usableFromInline let sectionReader: RecordReader<R>?

    @inlinable
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
    @inlinable
    func sortValues(_ record: R) -> _SortValues {
        switch sortReaders.count {
        case 1: return _SortValues(first: _SortValue(sortReaders[0](record), comparison: request.sortKeys[0].comparison))
        case 2:
            return _SortValues(
                first: _SortValue(sortReaders[0](record), comparison: request.sortKeys[0].comparison),
                second: _SortValue(sortReaders[1](record), comparison: request.sortKeys[1].comparison))
        default:
            return _SortValues(zip(sortReaders, request.sortKeys).map { _SortValue($0(record), comparison: $1.comparison) })
        }
    }

    @inlinable
    func sectionName(_ record: R) -> String {
        guard let sectionReader else { return "" }
        return _sectionName(sectionReader(record))
    }

    /// -1, 0 or 1: the order of two elements by sort values, then sequence.
    @inlinable
    func compare(_ a: _SortValues, _ sa: Int64, _ b: _SortValues, _ sb: Int64) -> Int {
        for (k, key) in request.sortKeys.enumerated() {
            let c = _SortValue.compare(a[k], b[k])
            if c != 0 { return key.ascending ? c : -c }
        }
        return sa < sb ? -1 : (sa > sb ? 1 : 0)
    }
}

/// A section's name from its key's value: a string as it is, nil as "", other
/// values as they print.
@usableFromInline
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

/// One sort key's values for every match, in the most direct form for
/// comparing: typed buffers, so that a comparison costs no reference counting.
enum _TypedColumn {
    case strings(UnsafeMutableBufferPointer<String>)
    case ints(UnsafeMutableBufferPointer<Int>)
    case doubles(UnsafeMutableBufferPointer<Double>)
    case general(UnsafeMutableBufferPointer<_SortValue>)

    init(_ values: [_SortValue]) {
        func buffer<T>(_ map: (_SortValue) -> T) -> UnsafeMutableBufferPointer<T> {
            let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: values.count)
            _ = buffer.initialize(from: values.lazy.map(map))
            return buffer
        }
        if values.allSatisfy({ if case .string = $0 { true } else { false } }) {
            self = .strings(buffer { if case .string(let s) = $0 { s } else { "" } })
        } else if values.allSatisfy({ if case .int = $0 { true } else { false } }) {
            self = .ints(buffer { if case .int(let i) = $0 { i } else { 0 } })
        } else if values.allSatisfy({ if case .double = $0 { true } else { false } }) {
            self = .doubles(buffer { if case .double(let d) = $0 { d } else { 0 } })
        } else if values.allSatisfy({ if case .date = $0 { true } else { false } }) {
            self = .doubles(buffer { if case .date(let d) = $0 { d } else { 0 } })
        } else {
            self = .general(buffer { $0 })
        }
    }

    func free() {
        switch self {
        case .strings(let b): b.deinitialize().deallocate()
        case .ints(let b): b.deallocate()
        case .doubles(let b): b.deallocate()
        case .general(let b): b.deinitialize().deallocate()
        }
    }

    /// -1, 0 or 1.
    @inline(__always)
    func compare(_ a: Int, _ b: Int) -> Int {
        switch self {
        case .strings(let v): return v[a] == v[b] ? 0 : (v[a] < v[b] ? -1 : 1)
        case .ints(let v): return v[a] == v[b] ? 0 : (v[a] < v[b] ? -1 : 1)
        case .doubles(let v): return v[a] == v[b] ? 0 : (v[a] < v[b] ? -1 : 1)
        case .general(let v): return _SortValue.compare(v[a], v[b])
        }
    }
}

/// Sorts positions by sort values (one array per key, each with its direction),
/// then by first-insertion order. Columns of one kind of value (strings,
/// integers, doubles or dates) compare directly; mixed ones through `_SortValue`.
///
/// - Complexity: O(*m* log *m*).
@usableFromInline
func _sortOrder(keys: [[_SortValue]], ascending: [Bool], sequences: [Int64]) -> [Int32] {
    let columns = keys.map(_TypedColumn.init)
    defer { for column in columns { column.free() } }
    let signs = ascending.map { $0 ? 1 : -1 }
    var order = (0..<Int32(sequences.count)).map { $0 }
    columns.withUnsafeBufferPointer { columns in
        signs.withUnsafeBufferPointer { signs in
            sequences.withUnsafeBufferPointer { sequences in
                order.sort { a, b in
                    let a = Int(a), b = Int(b)
                    for k in 0..<columns.count {
                        let c = columns[k].compare(a, b)
                        if c != 0 { return c * signs[k] < 0 }
                    }
                    return sequences[a] < sequences[b]
                }
            }
        }
    }
    return order
}

@usableFromInline
enum _Fetch {
    /// Evaluates, orders and names the sections of every record the context
    /// sees; returns the matches as elements, sorted.
    ///
    /// - Complexity: O(*n* + *m* log *m*) for *n* records and *m* matches.
    @inlinable
    static func run<R: Record & Codable>(_ compiled: _CompiledRequest<R>, in context: ObjectContext<R>, keepRecords: Bool) throws(FetchError) -> [_Element<R>] {
        var found: [_Element<R>?] = []
        let sectioned = compiled.sectionReader != nil
        try context.forEachRecord { record, sequence throws(FetchError) in
            if let matches = compiled.matches, try !matches(record) { return }
            found.append(_Element(
                id: record.id, sequence: sequence, sortValues: compiled.sortValues(record),
                sectionName: sectioned ? compiled.sectionName(record) : "", record: keepRecords ? copy record : nil))
        }
        let keys = compiled.request.sortKeys
        let order = found.withUnsafeBufferPointer { found in
            _sortOrder(
                keys: keys.indices.map { k in found.map { $0.unsafelyUnwrapped.sortValues[k] } },
                ascending: keys.map(\.ascending), sequences: found.map { $0.unsafelyUnwrapped.sequence })
        }
        // Move the elements into their order (no copies).
        var sorted: [_Element<R>] = []
        sorted.reserveCapacity(order.count)
        for k in order { if let element = found[Int(k)].take() { sorted.append(element) } }
        return sorted
    }
}
