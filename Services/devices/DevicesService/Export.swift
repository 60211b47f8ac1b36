import CustodianContracts
import CustodianHTTP
import CustodianRPC
import Foundation

/// What the devices' researcher exports add to the shared formats (``ResearcherExport``): time bounds as the
/// Twomes API writes them.
enum Export {
    /// A time bound from the query (`from`, `to`): ISO 8601 with an offset, or unix seconds.
    static func time(_ input: HTTPInput, _ name: String) throws -> Date? {
        guard let typed = input.query[name]?.first else { return nil }
        let text = ResearcherExport.timeBound(typed)
        do {
            return try TwomesTime.parse(.string(text), at: ["query", name], requirePlausible: false)
        } catch {
            throw RPCError.badRequest("\(name) must be an ISO 8601 time with an offset, or unix seconds", reason: "invalid_query")
        }
    }

    static func iso(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: false).format(date)
    }
}
