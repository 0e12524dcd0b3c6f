@testable import HeadlessTableTool
import TableTestSupport
import Testing

/// The browser's keys, from the bytes terminals send.
@Suite struct BrowseKeyTests {
    @Test func bytesBecomeKeys() {
        func keys(_ text: String) -> [Key] { Key.parse(Array(text.utf8)) }
        expectEqual(keys("\u{1B}[A\u{1B}[B\u{1B}OA\u{1B}OB"), [.up, .down, .up, .down])
        expectEqual(keys("\u{1B}[5~\u{1B}[6~"), [.pageUp, .pageDown])
        for home in ["\u{1B}[H", "\u{1B}OH", "\u{1B}[1~", "\u{1B}[7~"] { expectEqual(keys(home), [.home]) }
        for end in ["\u{1B}[F", "\u{1B}OF", "\u{1B}[4~", "\u{1B}[8~"] { expectEqual(keys(end), [.end]) }
        expectEqual(keys("\u{1B}"), [.escape])
        expectEqual(keys("\u{1B}[C\u{1B}[15~x"), [.character("x")], "other sequences are skipped")
        expectEqual(keys("\u{3}"), [.quit])
        expectEqual(keys("\r\u{7F}"), [.enter, .backspace])
        expectEqual(keys("/añ東🙂q"), ["/", "a", "ñ", "東", "🙂", "q"].map { .character($0) })
        expectEqual(keys("\u{1}\u{2}"), [], "other controls do nothing")
        expectEqual(Key.parse([0xFF, 0xC3]), [], "broken UTF-8 is dropped")
    }
}
