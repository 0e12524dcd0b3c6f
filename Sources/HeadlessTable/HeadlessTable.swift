// HeadlessTable: one import for the whole library.
@_exported import FetchedResults
@_exported import HeadlessTableView
@_exported import PredicateFormat
@_exported import RecordStore
@_exported import Records
@_exported import TableBindings
@_exported import TableDiff
