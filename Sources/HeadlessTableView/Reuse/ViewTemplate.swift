import TableDiff
import Foundation

/// A prototype cell (or header or footer view) archived once; every view made
/// from the template is decoded from the archive — a fresh, independent copy,
/// as nib and storyboard prototypes are.
///
/// ```swift
/// let prototype = EntryCell(reuseIdentifier: nil)
/// prototype.accessory = .disclosureIndicator
/// prototype.preferredHeight = 60
/// try table.register(ViewTemplate(prototype), forCellReuseIdentifier: "entry")
/// // or, like a nib file:
/// try table.register(ViewTemplate(contentsOf: url, as: EntryCell.self), forCellReuseIdentifier: "entry")
/// ```
///
/// The archive is JSON (what the view's `encode(to:)` writes), so a template
/// file can be written by hand or saved with ``write(to:)``.
public struct ViewTemplate: @unchecked Sendable {
    // The archive is immutable data; `make` only decodes it.
    /// The archived prototype.
    public let archive: Data
    /// The class of the views the template makes.
    public let viewType: TableReusableView.Type
    let make: (String?) throws -> TableReusableView

    /// Archives a prototype.
    ///
    /// - Throws: ``TableViewError/unreadableTemplate(_:)`` when the view cannot
    ///   be archived, or its archive does not decode.
    public init<Prototype: TableReusableView>(_ prototype: Prototype) throws(TableViewError) {
        let archive: Data
        do {
            archive = try JSONEncoder().encode(prototype)
        } catch {
            throw .unreadableTemplate("\(Prototype.self) cannot be archived: \(error)")
        }
        try self.init(archive: archive, as: Prototype.self)
    }

    /// A template from an archive: a view of type `type` must decode from it.
    ///
    /// - Throws: ``TableViewError/unreadableTemplate(_:)`` when it does not.
    public init<Prototype: TableReusableView>(archive: Data, as type: Prototype.Type) throws(TableViewError) {
        self.archive = archive
        viewType = type
        make = { identifier in
            let decoder = JSONDecoder()
            if let identifier { decoder.userInfo[.reuseIdentifier] = identifier }
            return try decoder.decode(Prototype.self, from: archive)
        }
        do {
            _ = try make("")
        } catch {
            throw .unreadableTemplate("the archive is not a \(Prototype.self): \(error)")
        }
    }

    /// A template from a file — the archive, as ``write(to:)`` saves it.
    ///
    /// - Throws: ``TableViewError/unreadableTemplate(_:)`` when the file cannot
    ///   be read or is not an archive of `type`.
    public init<Prototype: TableReusableView>(contentsOf url: URL, as type: Prototype.Type) throws(TableViewError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadableTemplate("\(url.path): cannot be read")
        }
        do throws(TableViewError) {
            try self.init(archive: data, as: type)
        } catch {
            throw .unreadableTemplate("\(url.path): \(error)")
        }
    }

    /// Saves the archive, to load later with ``init(contentsOf:as:)``.
    public func write(to url: URL) throws {
        try archive.write(to: url, options: .atomic)
    }

    /// The prototype as it was archived (a fresh copy, with the archived reuse identifier).
    public var prototype: TableReusableView? { try? make(nil) }

    /// A new view from the archive, with a reuse identifier — what a data
    /// source does when a dequeue finds nothing and it makes a cell itself:
    ///
    /// ```swift
    /// let cell = try table.dequeueReusableCell(withIdentifier: "entry")
    ///     ?? template.makeView(TableViewCell.self, reuseIdentifier: "entry")
    /// ```
    ///
    /// A table queues the view under the identifier when its row leaves, and
    /// hands it back on the next dequeue.
    ///
    /// - Throws: ``TableViewError/unreadableTemplate(_:)`` when the template's
    ///   views are not `View`s.
    public func makeView<View: TableReusableView>(_ type: View.Type = View.self, reuseIdentifier: String?) throws(TableViewError) -> View {
        do {
            if let view = try make(reuseIdentifier) as? View { return view }
        } catch {
            throw .unreadableTemplate("the archive is not a \(viewType): \(error)")
        }
        throw .unreadableTemplate("the template makes \(viewType), not \(View.self)")
    }
}
