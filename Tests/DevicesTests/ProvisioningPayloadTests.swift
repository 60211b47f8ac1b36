import CustodianContracts
import CustodianJSON
import Testing
@testable import DevicesService

@Suite("Device label payloads (docs/twomes.md, step B4)")
struct ProvisioningPayloadTests {
    @Test func theDocumentsTwoExamplesByteForByte() {
        #expect(
            ProvisioningPayload.text(name: "TWOMES-0D45DF", pop: "810667973", transport: .ble)
                == #"{"ver": "v1", "name": "TWOMES-0D45DF", "pop": "810667973", "transport": "ble"}"#)
        #expect(
            ProvisioningPayload.text(name: "TWOMES-8E23A6", pop: "516319575", transport: .softap)
                == #"{"ver": "v1", "name": "TWOMES-8E23A6", "pop": "516319575", "transport": "softap", "security": "1", "password": "516319575"}"#)
    }

    @Test func unusualTokensAreEscapedAsPythonDoes() {
        #expect(ProvisioningPayload.quote("a\"b\\c\né") == #""a\"b\\c\n\u00e9""#)
    }
}

@Suite("Twomes times")
struct TwomesTimeTests {
    @Test(arguments: [
        ("1622237550", 1_622_237_550.0), ("1622237550000", 1_622_237_550.0), ("2021-05-28T21:32:30Z", 1_622_237_550.0),
        ("2021-05-28T23:32:30+02:00", 1_622_237_550.0), ("2021-05-28 21:32:30.5+0000", 1_622_237_550.5),
    ])
    func acceptedForms(text: String, seconds: Double) throws {
        #expect(try TwomesTime.parse(.string(text), at: ["t"]).timeIntervalSince1970 == seconds)
    }

    @Test func naiveAndMalformedTimesAreRefused() {
        #expect(throws: (any Error).self) { try TwomesTime.parse(.string("2021-05-28T21:32:30"), at: ["t"]) }
        #expect(throws: (any Error).self) { try TwomesTime.parse(.string("2021-02-30T00:00:00Z"), at: ["t"]) }
        #expect(throws: (any Error).self) { try TwomesTime.parse(.bool(true), at: ["t"]) }
    }

    @Test func renderedInUTCWithAnOffset() {
        #expect(TwomesTime.render(.init(timeIntervalSince1970: 1_622_237_550.9)) == "2021-05-28T21:32:30+00:00")
    }

    @Test(arguments: [("300", 300.0), ("05:00", 300.0), ("01:00:00", 3600.0), ("PT5M", 300.0), ("P1DT1S", 86401.0)])
    func intervals(text: String, seconds: Double) throws {
        #expect(try TwomesTime.parseInterval(.string(text), at: ["i"]) == seconds)
    }
}
