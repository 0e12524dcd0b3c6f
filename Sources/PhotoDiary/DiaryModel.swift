import Foundation
import HeadlessTable

/// A diary entry, as the book's `DiaryEntry`: a text, when it was written,
/// whether it is a favourite, and its media — the to-many relationship
/// `media`, whose inverse is each medium's `diaryEntry`. Deleting an entry
/// deletes its media (cascade).
public struct DiaryEntry: Record, Codable, Equatable, Sendable {
    public var id: Int
    public var text: String
    public var creationTime: Date
    public var favorite = false
    /// The relationship `media`: the identities of its media (the context
    /// keeps it and each medium's `diaryEntry` consistent).
    public var media: [Medium.ID] = []

    public static let recordKeys: RecordKeys<DiaryEntry> = [
        "text": RecordKey(\.text),
        "creationTime": RecordKey(\.creationTime),
        "favorite": RecordKey(\.favorite),
        "month": RecordKey { .string(DiaryEntry.monthName($0.creationTime)) },
    ]

    /// An entry written at `time`, "2026-11-21 08:10" (UTC): fixed times, so
    /// that the story never depends on the clock.
    public init(_ id: Int, _ time: String, _ text: String) {
        self.id = id
        self.text = text
        creationTime = DiaryEntry.date(time)
    }

    /// The book's `mediumForType:`: the entry's first medium of a type
    /// (`"image"`, `"audio"`), read through the relationship `media` in
    /// `context`; nil when it has none.
    ///
    /// - Throws: `ContextError` when a medium it names is missing.
    public func medium(forType type: String, in context: ObjectContext) throws(ContextError) -> Medium? {
        try context.destinations(of: self, relationship: "media", as: Medium.self).first { $0.type == type }
    }

    /// "21 Nov 08:10", in English and UTC whatever the machine's settings.
    var shortDate: String {
        let iso = ISO8601.string(from: creationTime)   // 2026-11-21T08:10:00Z
        let month = Int(iso.dropFirst(5).prefix(2)) ?? 1
        return "\(Int(iso.dropFirst(8).prefix(2)) ?? 0) \(Self.months[(month - 1) % 12].prefix(3)) \(iso.dropFirst(11).prefix(5))"
    }

    static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]

    /// "November 2026": the entry's section.
    static func monthName(_ date: Date) -> String {
        let iso = ISO8601.string(from: date)
        return "\(months[((Int(iso.dropFirst(5).prefix(2)) ?? 1) - 1) % 12]) \(iso.prefix(4))"
    }

    /// "2026-11-21 08:10" (UTC) as a date.
    static func date(_ time: String) -> Date {
        ISO8601.date(from: time.replacingOccurrences(of: " ", with: "T") + ":00Z") ?? Date(timeIntervalSince1970: 0)
    }
}

/// A medium of an entry, as the book's `Medium`: a photo or a recording
/// (`type` is `"image"` or `"audio"`), and the to-one relationship
/// `diaryEntry` back to its entry (nullify: deleting a medium takes it out
/// of its entry's media).
public struct Medium: Record, Codable, Equatable, Sendable {
    public var id: Int
    public var type: String
    /// The relationship `diaryEntry`: its entry's identity, or nil.
    public var diaryEntry: DiaryEntry.ID?

    public init(_ id: Int, _ type: String, of entry: DiaryEntry.ID?) {
        self.id = id
        self.type = type
        diaryEntry = entry
    }

    public static let recordKeys: RecordKeys<Medium> = ["type": RecordKey(\.type)]
}

/// The diary's model: the book's two entities and their relationship pair.
public enum DiaryModel {
    /// `DiaryEntry.media` (to-many, inverse `diaryEntry`, cascade) and
    /// `Medium.diaryEntry` (to-one, inverse `media`, nullify).
    public static func make() throws(ObjectModelError) -> ObjectModel {
        try ObjectModel(
            .entity(DiaryEntry.self, relationships: [
                .toMany("media", \.media, to: Medium.self, inverse: "diaryEntry", deleteRule: .cascade),
            ]),
            .entity(Medium.self, relationships: [
                .toOne("diaryEntry", \.diaryEntry, to: DiaryEntry.self, inverse: "media", deleteRule: .nullify),
            ]))
    }
}
