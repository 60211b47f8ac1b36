import CustodianJSON
import CustodianRPC

/// How the gateway makes the response of a routed method's result.
public enum RoutedRendering: Sendable {
    /// The result is JSON, rendered in the route's API style.
    case json
    /// The result is a ``RawHTTPReply``: status, headers and body as the service made them.
    case raw
    /// The result is a ``StreamPage``; the gateway fetches the following pages while it writes the body.
    case stream
}

/// What a routed method answers; its type says how the gateway makes the response of it.
public protocol RoutedResult: Codable, Sendable {
    static var rendering: RoutedRendering { get }
}

/// A result the gateway renders as JSON in the route's API style: most of them. The gateway reads it as the JSON it is
/// (a ``JSONValue``), so the type matters only to the service that makes it and to those who call it typed.
public protocol RoutedJSON: RoutedResult {}

extension RoutedJSON {
    public static var rendering: RoutedRendering { .json }
}

/// JSON whose shape no type fixes: what the gateway reads every JSON result as, and what methods not converted to typed
/// results yet return.
extension JSONValue: RoutedJSON {}

/// A reply that is not JSON in the API's style (an image, a label sheet): the whole HTTP response, made by the service.
extension RawHTTPReply: RoutedResult {
    public static var rendering: RoutedRendering { .raw }
}

/// A page of an export too large for one frame.
extension StreamPage: RoutedResult {
    public static var rendering: RoutedRendering { .stream }
}

/// A result with nothing to say (a deletion answered `204`).
extension Empty: RoutedJSON {}

/// A JSON array of results (the modules of a vault user).
extension Array: RoutedResult where Element: RoutedJSON {}
extension Array: RoutedJSON where Element: RoutedJSON {}
