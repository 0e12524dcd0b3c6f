import HeadlessTable

/// The diary's prototype cell: an icon, the text, a favourite star and the
/// date, laid out by a template; the star is a control that acts on the
/// cell's entry.
public final class EntryCell: TableViewCell {
    static let layout: TextLineTemplate = "{icon:1} {text} {star:1} {date:>12}"

    var entry: DiaryEntry?
    /// The icon of the entry's media: ▣ a photo, ♪ a recording, ✎ text only.
    var icon = "✎"
    /// What tapping the star does (set by the screen): what it throws (a
    /// save that failed) is the tap's.
    var onStar: ((EntryCell) throws -> Void)?

    /// A tap on the star.
    ///
    /// - Throws: what saving the entry threw; the entry is as it was.
    public func tapStar() throws { try onStar?(self) }

    public override func textLines() -> [TextLine]? {
        entry.map { entry in
            [Self.layout.line(["icon": icon, "text": entry.text, "star": entry.favorite ? "★" : "☆", "date": entry.shortDate])]
        }
    }

    public override func prepareForReuse() {
        super.prepareForReuse()
        entry = nil
        icon = "✎"
    }
}
