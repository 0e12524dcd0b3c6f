// The query over the store: code that imports FetchedResults sees the store
// (ObjectStore, ObjectContext, the model, sort keys) as well, as Core Data's
// controller comes with its store.
@_exported import RecordStore
