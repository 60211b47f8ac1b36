import CustodianJSON

extension HTTPInput {
    /// Whether a NUL character (U+0000) is anywhere in what the client sent: body, path, query or forwarded headers.
    /// PostgreSQL stores no such text and no API of ours means anything by it, so the gateway refuses it in every
    /// request, in the route's API style, before a service sees it.
    public var containsNUL: Bool {
        bodyContainsNUL
            || path.contains { Self.containsNUL($0.key) || Self.containsNUL($0.value) }
            || query.contains { Self.containsNUL($0.key) || $0.value.contains(where: Self.containsNUL) }
            || headers.values.contains(where: Self.containsNUL)
    }

    private var bodyContainsNUL: Bool {
        switch bodyForm {
        case .value(let value): value.containsNUL
        case .checked(let text): text.containsNUL
        }
    }

    private static func containsNUL(_ text: String) -> Bool {
        text.utf8.contains(0)
    }
}
