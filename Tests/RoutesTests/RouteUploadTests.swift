import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation
import ServiceTestSupport
import Testing
@testable import CustodianContracts
@testable import RoutesService

/// The two body forms of `POST /route` and their errors, without a database.
@Suite("Route uploads")
struct RouteUploadTests {
    static let blob = Data((0..<200).map { UInt8($0) })
    static let lookup = "a43eb60ff41ab5ffede54fb9a654c4407adcb98b027e3425d1ad465d6a5f04c6"

    static func parse(_ body: JSONValue, query: [String: [String]] = [:]) throws -> RouteUpload {
        try RouteUpload.decoding.decode(RouteUpload.self, from: JSONValueEncoder().encode(HTTPInput(body: body, query: query)))
    }

    static func reason(_ body: JSONValue, query: [String: [String]] = [:]) -> String {
        do {
            _ = try parse(body, query: query)
            return "accepted"
        } catch let error as RPCError {
            return "\(error.code.httpStatus) \(error.reason)"
        } catch {
            return "\(error)"
        }
    }

    @Test func bareBase64AsTheAppSendsIt() throws {
        #expect(try Self.parse(.string(Self.blob.base64EncodedString())) == RouteUpload(blob: Self.blob, lookupID: nil))
        // Android's Base64.DEFAULT: line breaks every 76 characters and at the end.
        let wrapped = Self.blob.base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed]) + "\n"
        #expect(try Self.parse(.string(wrapped)).blob == Self.blob)
        // URL-safe alphabet, no padding.
        let urlSafe = Self.blob.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        #expect(try Self.parse(.string(urlSafe)).blob == Self.blob)
        let withLookup = try Self.parse(.string(Self.blob.base64EncodedString()), query: ["lookup_id": [Self.lookup.uppercased()]])
        #expect(withLookup.lookupID == Self.lookup)
    }

    @Test func theJSONForm() throws {
        let text = #"{"route": "\#(Self.blob.base64EncodedString())", "lookup_id": "\#(Self.lookup)"}"#
        #expect(try Self.parse(.string(text)) == RouteUpload(blob: Self.blob, lookupID: Self.lookup))
        #expect(try Self.parse(.string(#" {"route": "AQID", "lookup_id": null}"#)) == RouteUpload(blob: Data([1, 2, 3]), lookupID: nil))
        #expect(try Self.parse(.string(#"{"route": "AQID"}"#), query: ["lookup_id": [Self.lookup]]).lookupID == Self.lookup)
    }

    @Test func badBodies() {
        #expect(Self.reason(.null) == "400 missing_route")
        #expect(Self.reason(.string(" \n")) == "400 missing_route")
        #expect(Self.reason(.string("not base64!")) == "400 invalid_base64")
        #expect(Self.reason(.string("AQIDB")) == "400 invalid_base64")
        #expect(Self.reason(.string("AQ=ID")) == "400 invalid_base64")
        #expect(Self.reason(.string("====")) == "400 missing_route")
        #expect(Self.reason(.string("{not json")) == "400 malformed_body")
        // Text routes skip the gateway's JSON depth check: deep nesting must be a 400 here, not a crash.
        let deep = String(repeating: #"{"a":"#, count: 100_000) + "1" + String(repeating: "}", count: 100_000)
        #expect(Self.reason(.string(deep)) == "400 malformed_body")
        #expect(Self.reason(.string(#"{"lookup_id": "x"}"#)) == "400 missing_route")
        #expect(Self.reason(.string(#"{"route": 5}"#)) == "400 missing_route")
        #expect(Self.reason(.string(#"{"route": "AQID", "lookup_id": 7}"#)) == "400 invalid_lookup_id")
        #expect(Self.reason(.string("AQID"), query: ["lookup_id": ["abc"]]) == "400 invalid_lookup_id")
        #expect(Self.reason(.string("AQID"), query: ["lookup_id": [Self.lookup, Self.lookup]]) == "400 repeated_parameter")
        let other = String(Self.lookup.reversed())
        #expect(
            Self.reason(.string(#"{"route": "AQID", "lookup_id": "\#(other)"}"#), query: ["lookup_id": [Self.lookup]]) == "400 conflicting_lookup_id")
    }

    /// With a small limit: the 1 MiB one is exercised through the gateway (IntegrationTests), and decoding
    /// megabytes in a debug build here would only slow down the tests running beside this one.
    @Test func theSizeLimitCountsDecodedBytesWithoutPaddingOrLineBreaks() throws {
        #expect(RouteUpload.maximumSize == 1_048_576)
        for size in [999, 1000] {
            let text = Data(repeating: 7, count: size).base64EncodedString(options: .lineLength64Characters)
            #expect(try RouteUpload.decode(text, maximumSize: 1000).count == size)
        }
        for size in [1001, 1002, 1003, 2000] {
            do {
                _ = try RouteUpload.decode(Data(repeating: 7, count: size).base64EncodedString(), maximumSize: 1000)
                Issue.record("\(size) bytes were accepted")
            } catch let error as RPCError {
                #expect(error.reason == "route_too_large")
                #expect(error.message == "The encrypted route has \(size) bytes; at most 1000 are accepted")
            }
        }
    }

    @Test func routeIDsAre128RandomBits() {
        let ids = (0..<100).map { _ in RouteID.generate() }
        #expect(Set(ids).count == 100)
        #expect(ids.allSatisfy(RouteID.isWellFormed))
        #expect(!RouteID.isWellFormed("lookup"))
        #expect(!RouteID.isWellFormed(String(repeating: "A", count: 21) + "="))
    }
}

@Suite("Signature checks in routes")
struct SignatureVerifierTests {
    static func reason(_ timestamp: String, now: Int64 = 1_764_000_000) -> String {
        do {
            return String(try SignatureVerifier.timestamp(timestamp, now: now))
        } catch let error as RPCError {
            return "\(error.code.httpStatus) \(error.reason): \(error.message)"
        } catch {
            return "\(error)"
        }
    }

    @Test func timestampsWithinFiveMinutesEitherWay() {
        #expect(Self.reason("1764000000") == "1764000000")
        #expect(Self.reason("1763999700") == "1763999700")
        #expect(Self.reason("1764000300") == "1764000300")
        #expect(
            Self.reason("1763999699")
                == "401 timestamp_out_of_window: X-API-Timestamp 1763999699 is 301 s behind the server's clock (1764000000); it must be within 300 s")
        #expect(Self.reason("1764000301").hasPrefix("401 timestamp_out_of_window: X-API-Timestamp 1764000301 is 301 s ahead of"))
        for bad in ["", "17640000.5", "-1764000000", "1764000000000000", "+1764000000", "1e9", " 1764000000"] {
            #expect(Self.reason(bad).hasPrefix("401 invalid_timestamp"), "\(bad)")
        }
    }

    @Test func consumerNames() {
        #expect(CreateConsumerRequest.validName("  Geotag app (Android) ") == "Geotag app (Android)")
        #expect(CreateConsumerRequest.validName(" ") == nil)
        #expect(CreateConsumerRequest.validName("tab\tinside") == nil)
        #expect(CreateConsumerRequest.validName(String(repeating: "x", count: 101)) == nil)
    }

    /// The other geotag inputs, read as the gateway forwards them: an id that cannot be a route's is a route that does
    /// not exist, a lookup id is 64 hex digits, a consumer's name is checked in FastAPI's words.
    @Test func idsAndNamesAreCheckedAsTheyAreRead() throws {
        let routeID = "q7Vt0bC2kR9xYw1ZpLmN3A"
        #expect(try RoutedRequests.read(RouteByID.self, path: ["route_id": routeID]) == RouteByID(routeID: routeID))
        #expect(RoutedRequests.problem(RouteByID.self, path: ["route_id": routeID + "A"]) == ["404", "No such route"])
        #expect(RoutedRequests.problem(RouteByID.self, path: ["route_id": "q7Vt0bC2kR9xYw1ZpLmN3="]) == ["404", "No such route"])
        #expect(
            try RoutedRequests.read(RouteLookup.self, path: ["lookup_id": RouteUploadTests.lookup.uppercased()]).lookupID == RouteUploadTests.lookup)
        #expect(RoutedRequests.problem(RouteLookup.self, path: ["lookup_id": "xyz"])?.first == "400")
        #expect(try RoutedRequests.read(CreateConsumerRequest.self, body: #"{"name":"  Geotag app "}"#).name == "Geotag app")
        #expect(RoutedRequests.problem(CreateConsumerRequest.self, "{}") == ["body.name", "field required", "value_error.missing"])
        #expect(
            RoutedRequests.problem(CreateConsumerRequest.self, #"{"name":"a\tb"}"#)
                == ["body.name", "a name has 1 to 100 characters and no control characters", "value_error"])
        // A typed upload is sent in the JSON form, which reads back as itself.
        let upload = RouteUpload(blob: RouteUploadTests.blob, lookupID: RouteUploadTests.lookup)
        #expect(try RouteUpload.decoding.decode(RouteUpload.self, from: JSONValueEncoder().encode(upload)) == upload)
    }
}
