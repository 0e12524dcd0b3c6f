import Foundation
@testable import HeadlessTableTool
import TableTestSupport
import Testing

/// The tool reads and prints every 64-bit integer exactly, and refuses a
/// larger one with a message, never a rounded double.
@Suite struct ExactIntegerCommandTests {
    @Test func unsignedIdsStayApartAndPrintExactly() {
        let folder = TemporaryFolder()
        let data = folder.file("ids.json", #"[{"id":18446744073709551615,"n":-9223372036854775808},{"id":18446744073709551614,"n":9223372036854775808}]"#)
        let query = runCLI(["query", data, "--sort", "id", "--format", "json"])
        #expect(query.status == 0 && query.err.isEmpty, "\(query.err)")
        expectEqual(query.out, #"{"sections":[{"name":"","indexTitle":null,"ids":[18446744073709551614,18446744073709551615]}]}"# + "\n")
        let filtered = runCLI(["query", data, "--where", "n > 9223372036854775807 AND id == 18446744073709551614"])
        #expect(filtered.out.contains(#"{"id":18446744073709551614,"n":9223372036854775808}"#), "\(filtered.out)\(filtered.err)")
        #expect(filtered.out.hasPrefix("1 object"))
        // Against itself: nothing changes (the two ids are two rows, not a duplicate).
        let diff = runCLI(["diff", data, data])
        #expect(diff.status == 0 && !diff.err.contains("duplicate"), "\(diff.err)")
    }

    @Test func integersBeyondSixtyFourBitsAreRefused() {
        let folder = TemporaryFolder()
        let data = folder.file("big.json", #"[{"id":1,"n":123456789012345678901234567890}]"#)
        for arguments in [["query", data], ["render", data], ["diff", data, data]] {
            let result = runCLI(arguments)
            #expect(result.status == 1 && result.out.isEmpty, "\(arguments)")
            #expect(result.err.contains("the integer 123456789012345678901234567890 does not fit in 64 bits"), "\(arguments): \(result.err)")
        }
        let predicate = runCLI(["query", folder.file("one.json", #"[{"id":1}]"#), "--where", "id == 18446744073709551616"])
        #expect(predicate.status != 0 && predicate.err.contains("fits in 64 bits"), "\(predicate.err)")
    }
}
