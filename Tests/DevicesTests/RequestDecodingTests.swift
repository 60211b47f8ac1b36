import CustodianContracts
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation
import ServiceTestSupport
import Testing

/// The devices' typed inputs read from requests as the gateway forwards them: what each API answers to a body that is
/// wrong, word for word and in the order its checks ran before inputs were typed.
@Suite("devices: reading requests")
struct RequestDecodingTests {
    @Test func uploadMistakesInFastAPIsWords() {
        let cases: [(String, [String])] = [
            ("", ["body", "field required", "value_error.missing"]),
            ("[]", ["body", "value is not a valid dict", "type_error.dict"]),
            (#"{"property_measurements":[]}"#, ["body.upload_time", "field required", "value_error.missing"]),
            (
                #"{"upload_time":null,"property_measurements":[]}"#,
                ["body.upload_time", "none is not an allowed value", "type_error.none.not_allowed"]
            ),
            (#"{"upload_time":1}"#, ["body.property_measurements", "field required", "value_error.missing"]),
            (#"{"upload_time":1,"property_measurements":{}}"#, ["body.property_measurements", "value is not a valid list", "type_error.list"]),
            // Every group is an object before any group's members are read; a null one too is `not a valid dict`.
            (
                #"{"upload_time":1,"property_measurements":[{},null]}"#,
                ["body.property_measurements.1", "value is not a valid dict", "type_error.dict"]
            ),
            (
                #"{"upload_time":1,"property_measurements":[{"property_name":7}]}"#,
                ["body.property_measurements.0.property_name", "str type expected", "type_error.str"]
            ),
            (
                #"{"upload_time":1,"property_measurements":[{"property_name":"a","measurements":[null]}]}"#,
                ["body.property_measurements.0.measurements.0", "value is not a valid dict", "type_error.dict"]
            ),
            (
                #"{"upload_time":1,"property_measurements":[{"property_name":"a","measurements":[{"value":"1"}]}]}"#,
                ["body.property_measurements.0.measurements.0.timestamp", "field required", "value_error.missing"]
            ),
            (
                #"{"upload_time":1,"property_measurements":[{"property_name":"a","measurements":[{"timestamp":1,"value":null}]}]}"#,
                ["body.property_measurements.0.measurements.0.value", "none is not an allowed value", "type_error.none.not_allowed"]
            ),
            (
                #"{"upload_time":1,"property_measurements":[{"property_name":"a","measurements":[{"timestamp":1,"value":[]}]}]}"#,
                ["body.property_measurements.0.measurements.0.value", "str type expected", "type_error.str"]
            ),
            (#"{"upload_time":"2021-06-01T10:00:00","property_measurements":[]}"#, ["body.upload_time", "datetime without timezone", "value_error"]),
            (
                #"{"upload_time":4102444801,"property_measurements":[]}"#,
                ["body.upload_time", "datetime must be between 1970-01-01 and 2100-01-01", "value_error.datetime.range"]
            ),
        ]
        for (body, expected) in cases {
            #expect(RoutedRequests.problem(VariableIntervalUpload.self, body) == expected, "\(body)")
        }
    }

    @Test func fixedIntervalMistakes() {
        let series = #""property_name":"a","timestamp":1,"timestamp_type":"start","interval":60"#
        let cases: [(String, [String])] = [
            (
                #"{"upload_time":1,"property_measurements":[{\#(series),"measurements":[true,null]}]}"#,
                ["body.property_measurements.0.measurements.1", "none is not an allowed value", "type_error.none.not_allowed"]
            ),
            (
                #"{"upload_time":1,"property_measurements":[{"property_name":"a","timestamp":1,"timestamp_type":"middle","interval":60,"measurements":[]}]}"#,
                ["body.property_measurements.0.timestamp_type", "unexpected value; permitted: 'start', 'end'", "value_error.const"]
            ),
            (
                #"{"upload_time":1,"property_measurements":[{"property_name":"a","timestamp":1,"timestamp_type":"start","interval":"P40D","measurements":[]}]}"#,
                ["body.property_measurements.0.interval", "interval must be at most 31 days", "value_error.duration.range"]
            ),
        ]
        for (body, expected) in cases {
            #expect(RoutedRequests.problem(FixedIntervalUpload.self, body) == expected, "\(body)")
        }
    }

    /// 10,000 measurements fit one upload; one more is 413, once every measurement was read.
    @Test func tooManyMeasurementsIsTooLarge() throws {
        func upload(_ count: Int, last: String = #""1""#) -> String {
            let measurements = Array(repeating: #"{"timestamp":1,"value":"1"}"#, count: count - 1) + [#"{"timestamp":1,"value":\#(last)}"#]
            return #"{"upload_time":1,"property_measurements":[{"property_name":"a","measurements":[\#(measurements.joined(separator: ","))]}]}"#
        }
        #expect(try RoutedRequests.read(VariableIntervalUpload.self, body: upload(10_000)).samples.count == 10_000)
        #expect(RoutedRequests.problem(VariableIntervalUpload.self, upload(10_001)) == ["413", "An upload may carry at most 10000 measurements"])
        #expect(
            RoutedRequests.problem(VariableIntervalUpload.self, upload(10_001, last: "null"))?.first
                == "body.property_measurements.0.measurements.10000.value")
    }

    /// A typed upload sent as a request reads back as itself, and a retry is told by the body: key order does not
    /// matter, a different value does.
    @Test func aTypedUploadReadsBackAndItsDigestIsTheBodys() throws {
        let at = Date(timeIntervalSince1970: 1_622_237_550)
        let upload = VariableIntervalUpload(uploadTime: at, properties: [.init(name: "heartbeat", measurements: [.init(timestamp: at, value: "1")])])
        #expect(try VariableIntervalUpload.decoding.decode(VariableIntervalUpload.self, from: JSONValueEncoder().encode(upload)) == upload)
        let ordered = try RoutedRequests.read(
            VariableIntervalUpload.self,
            body:
                #"{"upload_time":1622237550,"property_measurements":[{"property_name":"heartbeat","measurements":[{"timestamp":1622237550,"value":"1"}]}]}"#
        )
        let reordered = try RoutedRequests.read(
            VariableIntervalUpload.self,
            body:
                #"{"property_measurements":[{"measurements":[{"value":"1","timestamp":1622237550}],"property_name":"heartbeat"}],"upload_time":1622237550}"#
        )
        let otherValue = try RoutedRequests.read(
            VariableIntervalUpload.self,
            body:
                #"{"upload_time":1622237550,"property_measurements":[{"property_name":"heartbeat","measurements":[{"timestamp":1622237550,"value":"2"}]}]}"#
        )
        #expect(ordered.bodyDigest == reordered.bodyDigest && ordered.bodyDigest.count == 32)
        #expect(ordered.bodyDigest != otherValue.bodyDigest)
    }

    @Test func deviceAndAccountRequests() throws {
        #expect(
            RoutedRequests.problem(CreateDeviceRequest.self, #"{"device_type":"Generic-Test"}"#) == [
                "body.name", "field required", "value_error.missing",
            ])
        // Every member is read before the name's pattern is checked.
        #expect(
            RoutedRequests.problem(CreateDeviceRequest.self, #"{"name":"SENSOR-1"}"#) == [
                "body.device_type", "field required", "value_error.missing",
            ])
        #expect(
            RoutedRequests.problem(CreateDeviceRequest.self, #"{"name":"TWOMES-ABCDEF","device_type":"x","activation_token":" short "}"#)
                == ["body.activation_token", "ensure this value has at least 8 characters", "value_error.any_str.min_length"])
        #expect(
            try RoutedRequests.read(CreateDeviceRequest.self, body: #"{"name":"TWOMES-ABCDEF","device_type":"x","activation_token":"  12345678 "}"#)
                .activationToken == "12345678")
        // No body at all makes an account with every default.
        #expect(try RoutedRequests.read(CreateAccountRequest.self, body: "") == CreateAccountRequest())
        #expect(
            RoutedRequests.problem(CreateAccountRequest.self, #"{"pseudonym":1.5}"#) == [
                "body.pseudonym", "value is not a valid integer", "type_error.integer",
            ])
        #expect(try RoutedRequests.read(CreateAccountRequest.self, body: #"{"pseudonym":" 812345 "}"#).pseudonym == 812_345)
        #expect(RoutedRequests.problem(CreateAccountRequest.self, #"{"tz_name":"CET"}"#) == ["body.tz_name", "illegal time zone", "value_error"])
        #expect(RoutedRequests.problem(AccountActivation.self, "{}") == ["body.activation_token", "field required", "value_error.missing"])
    }

    /// OpenSense's thesis words, in its order: each parameter is looked at before the next.
    @Test func openSenseMistakes() {
        func message(_ json: String) -> String? {
            do {
                _ = try RoutedRequests.read(OpenSenseUpload.self, body: json)
                return nil
            } catch {
                return (error as? RPCError)?.message
            }
        }
        #expect(message("") == "Missing device_id parameter")
        #expect(message("[1]") == "Missing device_id parameter")
        #expect(message(#"{"device_id":"a","data":"[]"}"#) == "Missing file_hash parameter")
        #expect(message(#"{"device_id":7,"file_hash":"abc","data":"[]"}"#) == "file_hash must be exactly 32 characters")
        #expect(message(#"{"device_id":"a","file_hash":"d751713988987e9331980363e24189ce","data":""}"#) == "Missing data parameter")
        #expect(
            message(#"{"device_id":"a","file_hash":"d751713988987e9331980363e24189ce","data":[]}"#)
                == "data must be the JSON document as a string, so that its file_hash can be checked")
        #expect(message(#"{"device_id":"a","file_hash":"00000000000000000000000000000000","data":"[]"}"#) == "Integrity check failed")
        // MD5("[]"), in upper case too.
        #expect(message(#"{"device_id":"a","file_hash":"D751713988987E9331980363E24189CE","data":"[]"}"#) == nil)
    }
}
