import Foundation
import HeadlessTable

/// A diary entry: a text, when it was written, what it holds, and whether it
/// is a favourite.
public struct Entry: Record, Codable, Equatable, Sendable {
    public enum Media: String, Codable, Sendable {
        case text, image, audio

        /// The icon its cell shows.
        var icon: String {
            switch self {
            case .text: "✎"
            case .image: "▣"
            case .audio: "♪"
            }
        }
    }

    public var id: Int
    public var text: String
    public var created: Date
    public var media: Media
    public var favorite = false

    public static let recordKeys: RecordKeys<Entry> = [
        "text": RecordKey(\.text),
        "created": RecordKey(\.created),
        "month": RecordKey { .string(Entry.monthName($0.created)) },
    ]

    /// An entry written at `time`, "2026-11-21 08:10" (UTC): fixed times, so
    /// that the story never depends on the clock.
    public init(_ id: Int, _ time: String, _ text: String, _ media: Media = .text) {
        self.id = id
        self.text = text
        self.media = media
        created = ISO8601.date(from: time.replacingOccurrences(of: " ", with: "T") + ":00Z") ?? Date(timeIntervalSince1970: 0)
    }

    /// "21 Nov 08:10", in English and UTC whatever the machine's settings.
    var shortDate: String {
        let iso = ISO8601.string(from: created)   // 2026-11-21T08:10:00Z
        let month = Int(iso.dropFirst(5).prefix(2)) ?? 1
        return "\(Int(iso.dropFirst(8).prefix(2)) ?? 0) \(Self.months[(month - 1) % 12].prefix(3)) \(iso.dropFirst(11).prefix(5))"
    }

    static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]

    /// "November 2026": the entry's section.
    static func monthName(_ date: Date) -> String {
        let iso = ISO8601.string(from: date)
        return "\(months[((Int(iso.dropFirst(5).prefix(2)) ?? 1) - 1) % 12]) \(iso.prefix(4))"
    }
}
