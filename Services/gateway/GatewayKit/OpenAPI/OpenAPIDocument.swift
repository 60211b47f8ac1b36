import CustodianJSON
import CustodianRPC

/// The OpenAPI 3.1 description of every route: docs/openapi.yaml, which the manifest compiles into the gateway
/// (`PackageResources.openapi_yaml`), turned once into the JSON `/openapi.json` serves and parsed for the reference page.
public enum OpenAPIDocument {
    /// The document is checked when it changes (tests convert, parse and validate it), so one that does not convert is a
    /// build that must not ship: it then serves an empty object and shows an empty reference.
    static let bytes: [UInt8] = (try? OpenAPIJSON.bytes(fromYAML: PackageResources.openapi_yaml)) ?? Array("{}".utf8)

    /// The document as values.
    public static let value: JSONValue = (try? JSONValue.parse(bytes, maximumDepth: 128)) ?? .object([:])
}
