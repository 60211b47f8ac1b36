import CustodianJSON
import CustodianRPC

/// The OpenAPI 3.1 description of every route (docs/openapi.yaml), served as `/openapi.json` byte for byte as the
/// script that copies it wrote it, and parsed once for the reference page.
public enum OpenAPIDocument {
    static let bytes: [UInt8] = Array(text.utf8)

    /// The document as values. It is checked when it is written (tests parse and validate it), so a document that
    /// does not parse is a build that must not ship: an empty object then shows as an empty reference.
    public static let value: JSONValue = (try? JSONValue.parse(bytes, maximumDepth: 128)) ?? .object([:])
}
