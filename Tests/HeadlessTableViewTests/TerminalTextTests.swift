import Foundation
import HeadlessTableView
import TableDiff
import TableTestSupport
import Testing

/// Terminal columns and line templates.
@Suite struct TerminalTextTests {
    /// Widths a terminal gives (as wcwidth and the East Asian Width table say).
    @Test(arguments: [
        ("a", 1), ("~", 1), (" ", 1), ("é", 1), ("e\u{301}", 1), ("\u{301}", 0), ("\u{200B}", 0), ("\u{AD}", 0),
        ("中", 2), ("あ", 2), ("ア", 2), ("ｱ", 1), ("Ａ", 2), ("한", 2), ("\u{1100}", 2), ("\u{1160}", 0), ("\u{3000}", 2),
        ("😀", 2), ("👩‍👩‍👧", 2), ("🇯🇵", 2), ("☀️", 2), ("☀", 1), ("✓", 1), ("─", 1), ("…", 1), ("\u{7}", 0),
        ("𠀋", 2), ("\u{3FFFD}", 2), ("x\u{20DD}", 1),
    ] as [(Character, Int)])
    func characterWidths(character: Character, width: Int) {
        expectEqual(TerminalText.width(of: character), width, "\(character.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test func textWidthsCountControlsAsTheSpaceTheyBecome() {
        expectEqual(TerminalText.width(of: "中文 ok"), 7)
        expectEqual(TerminalText.width(of: ""), 0)
        expectEqual(TerminalText.width(of: "a\tb\n"), 4)
        expectEqual(TerminalText.sanitized("a\tb\r\nc\u{85}"), "a b c ")   // CR LF is one character
        expectEqual(TerminalText.width(of: "Zoe\u{308} 👍🏽"), 6)
    }

    /// Bidirectional controls would reorder what follows them on a terminal
    /// (a right-to-left override shows "abc\u{202E}def" as "abcfed"): each
    /// becomes a space, as a control character does; other format
    /// characters and right-to-left letters stay.
    @Test func bidirectionalControlsBecomeSpaces() {
        let controls = (Array(0x202A...0x202E) + Array(0x2066...0x2069) + [0x200E, 0x200F, 0x061C]).map { Character(Unicode.Scalar($0)!) }
        for control in controls {
            let text = "abc\(control)def"
            let name = String(control.unicodeScalars.first!.value, radix: 16)
            expectEqual(TerminalText.sanitized(text), "abc def", "U+\(name)")
            expectEqual(TerminalText.width(of: text), 7, "U+\(name)")
            expectEqual(TerminalText.fitting(text, into: 5), "abc …", "U+\(name)")
            expectEqual(TerminalText.sanitized(String(control)), " ", "U+\(name)")
        }
        for kept in ["👩‍👩‍👧", "soft\u{AD}hyphen", "Grüße – שלום", "zero\u{200B}width", "مرحبا"] {
            expectEqual(TerminalText.sanitized(kept), kept)
        }
    }

    /// The byte scan that lets most text through unchanged finds exactly the
    /// texts the character-by-character definition changes: random texts of
    /// controls and of their neighbours in UTF-8 (the same lead bytes, the
    /// next and previous scalars).
    @Test func theByteScanFindsWhatTheCharactersChange() {
        var g = SeededGenerator(seed: SeededGenerator.runSeed())
        let scalars: [UInt32] = [
            0x00, 0x09, 0x0A, 0x1F, 0x20, 0x41, 0x7E, 0x7F, 0x80, 0x85, 0x9F, 0xA0, 0xA3, 0xAD, 0xE9,
            0x061B, 0x061C, 0x061D, 0x05D0, 0x200B, 0x200D, 0x200E, 0x200F, 0x2010, 0x2013, 0x2026, 0x2029,
            0x202A, 0x202E, 0x202F, 0x2065, 0x2066, 0x2069, 0x206A, 0x2502, 0x20AC, 0x4E2D, 0x1F44D,
        ]
        for _ in 0..<3_000 {
            let text = String(String.UnicodeScalarView((0..<Int.random(in: 0...6, using: &g)).map { _ in
                Unicode.Scalar(scalars.randomElement(using: &g)!)!
            }))
            let byCharacter = String(text.map { TerminalText.isControl($0) ? " " : $0 })
            expectEqual(TerminalText.hasControl(text), (byCharacter != text), "\(text.debugDescription)")
            expectEqual(TerminalText.sanitized(text), byCharacter, "\(text.debugDescription)")
        }
    }

    @Test func fittingPadsAlignsAndCuts() {
        expectEqual(TerminalText.fitting("ab", into: 5), "ab   ")
        expectEqual(TerminalText.fitting("ab", into: 5, alignment: .right), "   ab")
        expectEqual(TerminalText.fitting("ab", into: 5, alignment: .center), " ab  ")
        expectEqual(TerminalText.fitting("Grüße aus Köln", into: 8), "Grüße a…")
        expectEqual(TerminalText.fitting("Grüße aus Köln", into: 8, ellipsis: "..."), "Grüße...")
        // A wide character straddling the cut leaves a space.
        expectEqual(TerminalText.fitting("中文字", into: 4), "中 …")
        expectEqual(TerminalText.fitting("中文字", into: 1), "…")
        expectEqual(TerminalText.fitting("abc", into: 2, ellipsis: "..."), "ab")
        expectEqual(TerminalText.fitting("anything", into: 0), "")
        expectEqual(TerminalText.fitting("a\nb", into: 3), "a b")
    }

    /// Random texts from hard pieces fit any width exactly, keep a prefix of
    /// the text, and are unchanged when they fit.
    @Test func fittingAlwaysGivesTheWidth() {
        var g = SeededGenerator(seed: SeededGenerator.runSeed())
        let pieces = ["a", "中", "👩‍👩‍👧", "e\u{301}", "\u{301}", "\t", "🇯🇵", "ｶ", "…", " "]
        for _ in 0..<3_000 {
            let text = (0..<Int.random(in: 0...12, using: &g)).map { _ in pieces.randomElement(using: &g)! }.joined()
            let width = Int.random(in: 0...20, using: &g)
            let alignment = [TerminalText.Alignment.left, .right, .center].randomElement(using: &g)!
            let ellipsis = ["…", "...", ""].randomElement(using: &g)!
            let fitted = TerminalText.fitting(text, into: width, alignment: alignment, ellipsis: ellipsis)
            expectEqual(TerminalText.width(of: fitted), width, "\(text.debugDescription) into \(width)")
            let clean = TerminalText.sanitized(text)
            if width == 0 {
                #expect(fitted.isEmpty)
            } else if TerminalText.width(of: clean) <= width {
                // Only padding added (compared by scalars: a mark may join the padding).
                func unpadded(_ s: String) -> [Unicode.Scalar] { s.unicodeScalars.filter { $0 != " " } }
                expectEqual(unpadded(fitted), unpadded(clean), "\(text.debugDescription)")
            } else if TerminalText.width(of: ellipsis) <= width {
                #expect(fitted.hasSuffix(ellipsis))
                var kept = fitted.dropLast(ellipsis.count)
                while kept.last == " " { kept.removeLast() }
                #expect(clean.hasPrefix(kept), "\(fitted.debugDescription)")
            }
        }
    }

    // MARK: Templates

    @Test func templatesLayOutFieldsInTheWidth() throws {
        let layout: TextLineTemplate = "{title} {date:>12}"
        expectEqual(layout.fieldNames, ["title", "date"])
        let line = layout.line(["title": "Walk by the river", "date": "12 May 2026"])
        expectEqual(line.rendered(width: 32), "Walk by the river    12 May 2026")
        expectEqual(line.rendered(width: 24), "Walk by th…  12 May 2026")
        // Narrower than the fixed parts: the fixed field gives up its padding.
        expectEqual(line.rendered(width: 12), " 12 May 2026")
        expectEqual(line.rendered(width: 8), " 12 May…")
        expectEqual(line.rendered(width: 1), "…")
        expectEqual(line.rendered(width: 0), "")
        let centred = try TextLineTemplate(parsing: "[{a:^5}|{b:<4}|{c:>}]{{x}}")
        expectEqual(centred.line(["a": "hi", "b": "x", "c": "y"]).rendered(width: 20), "[ hi  |x   |   y]{x}")
        // Missing values are empty; several flexible fields share the width,
        // the shortest kept whole.
        expectEqual(centred.line([:]).rendered(width: 16), "[     |    |]{x}")
        let two: TextLineTemplate = "{a} {b}"
        expectEqual(two.line(["a": "aaaaaaaaaa", "b": "bb"]).rendered(width: 8), "aaaa… bb")
        expectEqual(two.line(["a": "aaaaaaaaaa", "b": "bbbbbbbbbb"]).rendered(width: 9), "aaa… bbb…")
    }

    @Test(arguments: [
        ("{title", TextLineTemplateError.unclosedBrace(offset: 0)),
        ("ab {x {y}", .unclosedBrace(offset: 3, nestedAt: 6)),
        ("a } b", .unopenedBrace(offset: 2)),
        ("{ }", .emptyFieldName(offset: 0)),
        ("{:>3}", .emptyFieldName(offset: 0)),
        ("x{date:>abc}", .badSpec("date:>abc", offset: 1)),
        ("{date:0}", .badSpec("date:0", offset: 0)),
        ("{date:1001}", .badSpec("date:1001", offset: 0)),
        ("{date:99999999999999999999999}", .badSpec("date:99999999999999999999999", offset: 0)),
    ])
    func malformedTemplatesAreTypedErrors(template: String, error: TextLineTemplateError) {
        expectThrows(error) { try TextLineTemplate(parsing: template) }
        // Written as a literal, it is text.
        #expect(TextLineTemplate(stringLiteral: template).line([:]).rendered(width: 40).hasPrefix(template))
    }

    @Test func templateErrorsSayWhatToWrite() {
        expectEqual(TextLineTemplateError.unclosedBrace(offset: 4).description, "The field at offset 4 has no closing `}`; write `{{` for a literal brace.")
        #expect(TextLineTemplateError.badSpec("d:x", offset: 0).description.contains("as in `{date:>12}`"))
    }
}
