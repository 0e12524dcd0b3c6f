// HeadlessTable: one import for the whole library.
@_exported import FetchedResults
@_exported import TableDiff
