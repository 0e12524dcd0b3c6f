import Foundation
import PredicateFormat
import Records
import TableTestSupport
import Testing

// Integers beyond 2^63 and at the limits, exact in predicates.

extension PredicateEvaluationTests {
    @Test func integersAreExactInPredicates() throws {
        let big: RecordValue = ["id": .uint(.max - 1), "small": .int(.max), "half": .double(9_223_372_036_854_775_808)]
        check([
            ("id == 18446744073709551614", true),
            ("id == 18446744073709551615", false),
            ("id == 0xFFFFFFFFFFFFFFFE", true),
            ("id > small", true),
            ("small + 1 == 9223372036854775808", true),
            ("small + 1 == half", true),
            ("id + 1 == 18446744073709551615", true),
            ("id - 18446744073709551614 == 0", true),
            // Beyond 64 bits arithmetic gives a double (as documented): here it rounds back.
            ("-9223372036854775808 - 1 == -9223372036854775808.0", true),
            ("-(-9223372036854775808) == 9223372036854775808", true),
            ("id / 2 == 9223372036854775807", true),
            ("modulus:by:(id, 10) == 4", true),
            ("abs(-9223372036854775808) == 9223372036854775808", true),
            ("2 ** 63 == 9223372036854775808", true),
            ("2 ** 64 == 18446744073709551616.0", true),
            ("CAST('18446744073709551615', 'NSNumber') == 18446744073709551615", true),
            ("CAST(id, 'NSString') == '18446744073709551614'", true),
            ("18446744073709551615 > 18446744073709551614.0", false),   // the double is 2^64, above both
        ], on: big)
        for text in ["x == 18446744073709551616", "x == -9223372036854775809", "x == 0x1FFFFFFFFFFFFFFFF"] {
            expectThrows(PredicateSyntaxError.self, "\(text)") { try FormatPredicate(format: text) }
        }
        try expectEqual(FormatPredicate(format: "x == 18446744073709551615").description, "x == 18446744073709551615")
        try expectEqual(FormatPredicate(format: "x == -9223372036854775808").description, "x == -9223372036854775808")
    }
}
