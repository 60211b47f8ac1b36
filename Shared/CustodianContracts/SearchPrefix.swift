import CustodianHTTP
import Foundation
import CustodianRPC

/// `?q=…` of the researchers' lists: the start of what a row is found by (a device id, a link's title), matched in SQL
/// with `starts_with`, which a `COLLATE "C"` index answers as a range (docs/admin.md, "Search and paging").
extension RequestReader {
    /// The one value of `q`, trimmed; nil when absent or blank (the whole list), a 400 when longer than `maximumLength`
    /// characters, since no row can start with it.
    public func searchPrefix(maximumLength: Int) throws -> String? {
        guard let text = try singleQuery("q")?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard text.count <= maximumLength else {
            throw RPCError.badRequest("q must be at most \(maximumLength) characters", reason: "invalid_query")
        }
        return text
    }
}
