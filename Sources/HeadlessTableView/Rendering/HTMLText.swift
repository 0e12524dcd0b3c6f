/// Text made safe to put in HTML: what ``HTMLRenderer`` does to every text
/// from the data before it reaches a page, for an embedder's own markup too.
///
/// ```swift
/// HTMLText.escaped(#"<script>alert("hi")</script>"#)
/// // "&lt;script&gt;alert(&quot;hi&quot;)&lt;/script&gt;"
/// ```
///
/// The result is safe both as an element's text and as a quoted attribute
/// value (either quote): `&`, `<`, `>`, `"` and `'` become character
/// references; a line feed and a carriage return become `&#10;` and `&#13;`,
/// so that one element's markup stays on one line; NUL, which HTML does not
/// carry, becomes U+FFFD (the replacement character). Nothing else changes:
/// the page shows exactly the text.
public enum HTMLText {
    /// `text` with HTML's special characters as character references.
    ///
    /// - Complexity: O(*n*); text without special characters is returned as it is after one scan of its bytes.
    public static func escaped(_ text: some StringProtocol) -> String {
        var special = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\""), UInt8(ascii: "'"), 0x0A, 0x0D, 0x00:
                special = true
            default:
                continue
            }
            break
        }
        guard special else { return String(text) }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\n": result += "&#10;"
            case "\r": result += "&#13;"
            case "\0": result.unicodeScalars.append("\u{FFFD}")
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
