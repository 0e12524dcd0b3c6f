import Foundation
import HeadlessTableTool

// headless-table: the command-line tool. See `headless-table help`.
let status = HeadlessTableCommand.run(arguments: Array(CommandLine.arguments.dropFirst()), output: .standard)
exit(status)
