import TableDiff
/// A cell's own line layout for text: literal text and fields in braces.
///
/// ```swift
/// let layout: TextLineTemplate = "{title} {date:>12}"
/// layout.line(["title": "Walk by the river", "date": "12 May 2026"])
/// ```
///
/// A field is `{name}` or `{name:spec}`, where the spec is an alignment — `<`
/// left (the default), `>` right, `^` centered — and a width in columns, each
/// optional: `{date:>12}` is right-aligned in exactly 12 columns, `{title:>}`
/// right-aligned in what is left. `{{` and `}}` are literal braces.
///
/// Laid out in a width, fixed fields and literal text take their columns; the
/// fields without a width take their text's, and the first of them also what
/// is left over — so `{title} {date:>12}` puts the date at the right edge.
/// When the line is too narrow, the fields without a width share what is left
/// (the shortest keep their text whole) and are cut with an ellipsis; if even
/// the fixed parts do not fit, fixed fields shrink to their text and the line
/// is cut at the end. A missing value is empty.
public struct TextLineTemplate: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    enum Part: Hashable, Sendable {
        case literal(String)
        case field(name: String, alignment: TerminalText.Alignment, width: Int?)
    }

    let parts: [Part]
    /// The template as written.
    public let description: String

    /// The widest a fixed field may be.
    public static let maximumFieldWidth = 1_000

    /// Parses a template (from data or input; a literal in the code is a
    /// template by itself).
    ///
    /// - Throws: ``TextLineTemplateError`` naming the offset and what is wrong:
    ///   a brace not closed, a `}` not opened, an empty field name, a spec that
    ///   is not an alignment and a width.
    public init(parsing template: String) throws(TextLineTemplateError) {
        description = template
        parts = try Self.parse(template)
    }

    /// A template written in the code. One that does not parse is taken as
    /// literal text (``init(parsing:)`` says what is wrong with it).
    public init(stringLiteral value: String) {
        description = value
        parts = (try? Self.parse(value)) ?? [.literal(value)]
    }

    /// The names of the fields, in order.
    public var fieldNames: [String] {
        parts.compactMap { if case .field(let name, _, _) = $0 { name } else { nil } }
    }

    /// A line of this layout with its values.
    public func line(_ values: [String: String]) -> TextLine { TextLine(template: self, values: values) }

    static func parse(_ template: String) throws(TextLineTemplateError) -> [Part] {
        var parts: [Part] = []
        var literal = ""
        var index = template.startIndex
        func offset(_ i: String.Index) -> Int { template.distance(from: template.startIndex, to: i) }
        while index < template.endIndex {
            let character = template[index]
            let next = template.index(after: index)
            if character == "}" {
                guard next < template.endIndex, template[next] == "}" else {
                    throw .unopenedBrace(offset: offset(index))
                }
                literal.append("}")
                index = template.index(after: next)
                continue
            }
            guard character == "{" else {
                literal.append(character)
                index = next
                continue
            }
            if next < template.endIndex, template[next] == "{" {
                literal.append("{")
                index = template.index(after: next)
                continue
            }
            guard let close = template[next...].firstIndex(of: "}") else { throw .unclosedBrace(offset: offset(index)) }
            let body = template[next..<close]
            if let nested = body.firstIndex(of: "{") { throw .unclosedBrace(offset: offset(index), nestedAt: offset(nested)) }
            let name: Substring, spec: Substring?
            if let colon = body.firstIndex(of: ":") {
                name = body[..<colon]
                spec = body[body.index(after: colon)...]
            } else {
                (name, spec) = (body, nil)
            }
            let trimmedName = name.trimmingSpaces
            guard !trimmedName.isEmpty else { throw .emptyFieldName(offset: offset(index)) }
            var alignment = TerminalText.Alignment.left
            var width: Int?
            if var spec {
                switch spec.first {
                case "<": alignment = .left; spec = spec.dropFirst()
                case ">": alignment = .right; spec = spec.dropFirst()
                case "^": alignment = .center; spec = spec.dropFirst()
                default: break
                }
                if !spec.isEmpty {
                    guard spec.allSatisfy({ ("0"..."9").contains($0) }), let n = Int(spec), n > 0, n <= Self.maximumFieldWidth else {
                        throw .badSpec(String(body), offset: offset(index))
                    }
                    width = n
                }
            }
            if !literal.isEmpty { parts.append(.literal(literal)); literal = "" }
            parts.append(.field(name: String(trimmedName), alignment: alignment, width: width))
            index = template.index(after: close)
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        return parts
    }

    /// The line laid out in exactly `width` columns.
    func render(_ values: [String: String], width: Int, ellipsis: String) -> String {
        guard width > 0 else { return "" }
        var texts = parts.map { part -> String in
            switch part {
            case .literal(let text): TerminalText.sanitized(text)
            case .field(let name, _, _): TerminalText.sanitized(values[name] ?? "")
            }
        }
        // Columns for each part: fixed ones first, then the flexible fields.
        var columns = parts.indices.map { i -> Int? in
            switch parts[i] {
            case .literal: TerminalText.width(of: texts[i])
            case .field(_, _, let w): w
            }
        }
        let flexible = parts.indices.filter { columns[$0] == nil }
        var fixed = columns.reduce(0) { $0 + ($1 ?? 0) }
        if fixed > width {
            // Too narrow for the fixed widths: fixed fields give up their padding.
            for i in parts.indices {
                guard case .field(_, _, let w?) = parts[i] else { continue }
                columns[i] = Swift.min(w, TerminalText.width(of: texts[i]))
                fixed -= w - (columns[i] ?? w)
            }
        }
        let natural = flexible.map { TerminalText.width(of: texts[$0]) }
        var room = Swift.max(0, width - fixed)
        let wanted = natural.reduce(0, +)
        if wanted <= room {
            for (k, i) in flexible.enumerated() { columns[i] = natural[k] }
            if let first = flexible.first { columns[first] = natural[0] + room - wanted }
        } else {
            // Share what is left: the narrowest fields keep their text whole.
            var share = Array(repeating: 0, count: flexible.count)
            var open = Array(flexible.indices).sorted { natural[$0] < natural[$1] }
            while !open.isEmpty {
                let fair = room / open.count
                let k = open[0]
                if natural[k] <= fair {
                    share[k] = natural[k]
                    room -= natural[k]
                    open.removeFirst()
                } else {
                    for (j, k) in open.enumerated() { share[k] = fair + (j < room % open.count ? 1 : 0) }
                    open = []
                }
            }
            for (k, i) in flexible.enumerated() { columns[i] = share[k] }
        }
        for i in parts.indices {
            guard case .field(_, let alignment, _) = parts[i] else { continue }
            texts[i] = TerminalText.fitting(texts[i], into: columns[i] ?? 0, alignment: alignment, ellipsis: ellipsis)
        }
        return TerminalText.fitting(texts.joined(), into: width, ellipsis: ellipsis)
    }
}

/// A line of a cell's own layout: a template and the values of its fields.
public struct TextLine: Hashable, Sendable {
    public var template: TextLineTemplate
    public var values: [String: String]

    public init(template: TextLineTemplate, values: [String: String]) {
        self.template = template
        self.values = values
    }

    /// The line laid out in exactly `width` columns, cut with `ellipsis`.
    public func rendered(width: Int, ellipsis: String = "…") -> String {
        template.render(values, width: width, ellipsis: ellipsis)
    }
}

/// A line template that does not parse.
public enum TextLineTemplateError: Error, Hashable, Sendable, CustomStringConvertible {
    case unclosedBrace(offset: Int, nestedAt: Int? = nil)
    case unopenedBrace(offset: Int)
    case emptyFieldName(offset: Int)
    case badSpec(String, offset: Int)

    public var description: String {
        switch self {
        case .unclosedBrace(let offset, nil):
            "The field at offset \(offset) has no closing `}`; write `{{` for a literal brace."
        case .unclosedBrace(let offset, let nested?):
            "The field at offset \(offset) is not closed before another `{` at offset \(nested); fields do not nest."
        case .unopenedBrace(let offset):
            "A `}` at offset \(offset) closes no field; write `}}` for a literal brace."
        case .emptyFieldName(let offset):
            "The field at offset \(offset) has no name: write `{title}` or `{date:>12}`."
        case .badSpec(let body, let offset):
            "The field `{\(body)}` at offset \(offset) has a spec that is not an alignment (`<`, `>` or `^`) and a width from 1 to \(TextLineTemplate.maximumFieldWidth), as in `{date:>12}`."
        }
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return s
    }
}
