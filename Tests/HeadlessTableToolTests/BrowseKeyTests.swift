@testable import HeadlessTableTool
import Testing

/// The browser's keys, from the bytes terminals send.
@Suite struct BrowseKeyTests {
    @Test func bytesBecomeKeys() {
        func keys(_ text: String) -> [Key] { Key.parse(Array(text.utf8)) }
        #expect(keys("\u{1B}[A\u{1B}[B\u{1B}OA\u{1B}OB") == [.up, .down, .up, .down])
        #expect(keys("\u{1B}[5~\u{1B}[6~") == [.pageUp, .pageDown])
        for home in ["\u{1B}[H", "\u{1B}OH", "\u{1B}[1~", "\u{1B}[7~"] { #expect(keys(home) == [.home]) }
        for end in ["\u{1B}[F", "\u{1B}OF", "\u{1B}[4~", "\u{1B}[8~"] { #expect(keys(end) == [.end]) }
        #expect(keys("\u{1B}") == [.escape])
        #expect(keys("\u{1B}[C\u{1B}[15~x") == [.character("x")], "other sequences are skipped")
        #expect(keys("\u{3}") == [.quit])
        #expect(keys("\r\u{7F}") == [.enter, .backspace])
        #expect(keys("/añ東🙂q") == ["/", "a", "ñ", "東", "🙂", "q"].map { .character($0) })
        #expect(keys("\u{1}\u{2}") == [], "other controls do nothing")
        #expect(Key.parse([0xFF, 0xC3]) == [], "broken UTF-8 is dropped")
    }
}
