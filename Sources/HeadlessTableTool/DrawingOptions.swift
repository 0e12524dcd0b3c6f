import Foundation
import HeadlessTable
import ToolArguments

/// How a command draws tables: `--width W`, `--height H`, `--ascii`, `--text KEY`, `--detail KEY`.
struct DrawingOptions {
    var width = 60
    /// Nil when not given: each command has its own default.
    var height: Int?
    var ascii = false
    var textKey: String?
    var detailKey: String?

    /// The options, each applying only with `requires` when given (`diff`'s `--render`).
    static func options(requires: String?, height: String) -> [OptionDeclaration] {
        [
            OptionDeclaration("width", .integer("W", 1...TextRenderer.maximumWidth), help: "columns", default: "60", requires: requires),
            OptionDeclaration(
                "height", .integer("H", 1...TextRenderer.maximumLines), help: "lines of the window", defaultNote: height, requires: requires),
            .flag("ascii", help: "plain ASCII instead of box drawing", requires: requires),
            OptionDeclaration("text", .text("KEY"), help: "the field a row shows", defaultNote: "title, name or text", requires: requires),
            OptionDeclaration("detail", .text("KEY"), help: "a field shown at the right of a row", requires: requires),
        ]
    }

    init(_ parsed: ParsedArguments) {
        width = parsed.integer("width") ?? 60
        height = parsed.integer("height")
        ascii = parsed.flag("ascii")
        textKey = parsed.string("text")
        detailKey = parsed.string("detail")
    }

    /// Refuses a `--text` or `--detail` key that no object has (rather than
    /// blank rows), naming the closest key the objects have.
    func checkKeys<Records: Sequence<DynamicRecord>>(_ records: Records) throws {
        keys: for (option, key) in [("text", textKey), ("detail", detailKey)] {
            guard let key else { continue }
            var seen = Set<String>()
            var any = false
            for record in records {
                any = true
                if record[key] != nil { continue keys }
                if seen.count < 1_000 { seen.formUnion(record.keys) }
            }
            guard any else { continue }
            let closest = EditDistance.closest(to: key, among: seen.sorted()).map { " (did you mean \($0)?)" } ?? ""
            throw CommandError("--\(option) \(UsageError.excerpt(key)): no object has the key \(UsageError.excerpt(key).debugDescription)\(closest)")
        }
    }

    func renderer() throws -> TextRenderer {
        do {
            return try TextRenderer(width: width, style: ascii ? .ascii : .box, pointsPerLine: 1)
        } catch {
            throw CommandError.usage("--width: \(error)")
        }
    }
}
