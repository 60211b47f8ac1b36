import CustodianRPC
import Tracing

extension SQLText {
    /// A statement's command and the first table it names (`("SELECT", "devices.uploads")`), for its span: what ran
    /// where, never a value. Values are binds, and the text itself is not recorded, as a literal could stand in it.
    public static func summary(_ sql: String) -> (operation: String, collection: String?) {
        // Quotes and `$` stay in a word, so that a literal ('Jane') or a bind ($1) is a word that starts with no letter.
        let words = sql.split(whereSeparator: { !($0.isASCII && ($0.isLetter || $0.isNumber || "_.\"'$".contains($0))) })
        guard let first = words.first, first.allSatisfy(\.isLetter) else { return ("SQL", nil) }
        var collection: String?
        for (index, word) in words.enumerated().dropLast() where tableWords.contains(word.uppercased()) {
            let name = words[index + 1].filter { $0 != "\"" }
            if let start = name.first, start.isLetter || start == "_", name.count <= 128 { collection = name }
            break
        }
        return (first.uppercased(), collection)
    }

    private static let tableWords: Set<String> = ["FROM", "INTO", "UPDATE", "JOIN", "TABLE"]
}

/// A SQL statement's span: named by the statement (a prepared statement's type, else its command and first table),
/// with OpenTelemetry's database attributes.
enum StatementSpan {
    static func run<T>(
        sql: String, statement: @autoclosure () -> String? = nil, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async throws -> T {
        try await Spans.run("SQL", kind: .client) { span in
            if span.isRecording {
                let (operation, collection) = SQLText.summary(sql)
                let summary = [operation, collection].compactMap { $0 }.joined(separator: " ")
                let statement = statement()
                span.operationName = statement ?? summary
                span.attributes["db.system.name"] = "postgresql"
                span.attributes["db.operation.name"] = operation
                span.attributes["db.query.summary"] = summary
                if let collection { span.attributes["db.collection.name"] = collection }
            }
            return try await body()
        }
    }
}
