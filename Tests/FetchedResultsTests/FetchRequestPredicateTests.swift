import FetchedResults
import Foundation
import PredicateFormat
import Records
import TableTestSupport
import Testing

/// Fetch requests with format predicates: the order and the errors a fetch gives.
@Suite struct FetchRequestPredicateTests {
    @Test func fetchRequestsTakeFormatStrings() throws {
        let store = ObjectStore(for: DynamicObject.self)
        let context = ObjectContext(store: store)
        for (k, name) in ["Anna", "Björn", "Émile", "Zoë", "Ånge"].enumerated() {
            try context.insert(DynamicObject(fields: DynamicRecord(fields: [("id", .int(k)), ("name", .string(name)), ("age", .int(20 + k * 5))])))
        }
        try context.save()
        let request = FetchRequest<DynamicObject>(predicate: try RecordPredicate(format: "name CONTAINS[cd] %@ OR age > %d", "e", 35), sortKeys: [SortKey("name")])
        try expectEqual(context.fetch(request).map { $0.fields["name"] ?? nil }, ["Zoë", "Ånge", "Émile"])
        let failing = FetchRequest<DynamicObject>(predicate: try RecordPredicate(format: "name > 5"), sortKeys: [SortKey("name")])
        expectThrows(FetchError.predicateFailed(.typeMismatch(operation: ">", kinds: ["string", "int"]))) { try context.fetch(failing) }
        expectEqual("\(FetchError.predicateFailed(.typeMismatch(operation: ">", kinds: ["string", "int"])))", "the predicate failed: > cannot take a string and an int")
        let controller = FetchedResultsController(fetchRequest: request, context: context)
        try controller.performFetch()
        expectEqual(controller.fetchedObjects?.count, 3)
    }
}
