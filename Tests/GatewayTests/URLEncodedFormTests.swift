import CustodianJSON
import Foundation
import Testing

@testable import GatewayKit

/// The gateway's one reader of `application/x-www-form-urlencoded` text: the routes' queries (kept as sent where
/// not valid) and form bodies (refused where not valid), and the console's forms and queries.
@Suite("URL-encoded forms and queries")
struct URLEncodedFormTests {
    /// Both readings of a text that is valid: a query's and a form body's.
    private static func both(_ text: String) -> ([String: [String]], [String: [String]]?) {
        (URLEncodedForm.query(text), URLEncodedForm.fields(Data(text.utf8)))
    }

    @Test func aRepeatedNameKeepsEveryValueInOrder() {
        let (query, form) = Self.both("a=1&b=x&a=2&a=1")
        #expect(query == ["a": ["1", "2", "1"], "b": ["x"]])
        #expect(form == query)
    }

    /// A route's form body reaches the service as an object of strings, where a repeated name's last value counts
    /// (docs/rpc.md, "Input").
    @Test func aRoutesFormKeepsARepeatedNamesLastValue() {
        #expect(RouteForwarder.formFields(Data("device_id=a&key=k&device_id=b".utf8)) == .object(["device_id": .string("b"), "key": .string("k")]))
    }

    @Test func plusIsASpaceAndEscapesAreDecodedInNamesAndValues() {
        let (query, form) = Self.both("data=a+b%2Bc%20d&caf%C3%A9=%E2%82%AC&x+y=1&%3D%26=%25")
        #expect(query == ["data": ["a b+c d"], "café": ["€"], "x y": ["1"], "=&": ["%"]])
        #expect(form == query)
    }

    @Test func emptyValuesBareNamesAndEmptyParts() {
        let (query, form) = Self.both("empty=&bare&&=v&a==b&")
        #expect(query == ["empty": [""], "bare": [""], "": ["v"], "a": ["=b"]])
        #expect(form == query)
        #expect(URLEncodedForm.query("") == [:])
        #expect(URLEncodedForm.fields(Data()) == [:])
    }

    /// A query is part of a link: what is not valid percent-encoding reaches the route as it was sent, `+` included.
    @Test(arguments: ["%ZZ", "%", "%2", "50%", "a+%FF", "%C3", "%E2%82", "%%41"])
    func aQueryKeepsWhatIsNotValidPercentEncodingAsSent(text: String) {
        #expect(URLEncodedForm.query("v=\(text)&w=a+b") == ["v": [text], "w": ["a b"]])
        #expect(URLEncodedForm.query("\(text)=1") == [text: ["1"]])
    }

    /// The OpenSense and OAuth form bodies answer 400 "The form body is not valid URL encoding" (docs/opensense.md).
    @Test(arguments: ["v=%ZZ", "v=%", "v=%2", "v=%FF", "%C3=1", "a=1&b=%E2%82", "a=1&%zz"])
    func aFormWithInvalidPercentEncodingIsRefused(text: String) {
        #expect(URLEncodedForm.fields(Data(text.utf8)) == nil)
    }

    @Test func aFormBodyThatIsNotUTF8IsRefused() {
        #expect(URLEncodedForm.fields(Data([0x61, 0x3D, 0xFF])) == nil)
    }

    /// The gateway refuses U+0000 in any name or value (docs/operations.md, "Hostile input"): it must come out
    /// of the decoding for that check to see it.
    @Test func anEscapedNULCharacterIsDecoded() {
        let (query, form) = Self.both("x=a%00b&%00=1")
        #expect(query == ["x": ["a\u{0}b"], "\u{0}": ["1"]])
        #expect(form == query)
    }

    /// As the WHATWG URL standard splits: at the bytes `&` and `=`, even where a combining mark sent unencoded
    /// follows one (Swift's `Character`s would glue the two).
    @Test func ampersandAndEqualsSplitWhereverTheyAre() {
        #expect(URLEncodedForm.query("a=1&\u{301}b=2&c=\u{301}") == ["a": ["1"], "\u{301}b": ["2"], "c": ["\u{301}"]])
        #expect(URLEncodedForm.query("a+\u{301}=1") == ["a \u{301}": ["1"]])
    }

    /// Every name and value decodes as Foundation's `removingPercentEncoding` does once `+` is a space (what the
    /// gateway did before it had its own decoder): generated texts from the pieces that matter, the same each run.
    @Test func decodingAgreesWithFoundation() {
        let pieces = [
            "a", "Z", "+", "%", "%2", "%2B", "%20", "%zz", "%C3%A9", "%c3%a9", "%C3", "%E2%82%AC", "%FF", "%00", "%25",
            "%%", "%CC%81", "é", "€", "\u{1F600}", " ", ";", "/", "?", "\r\n",
        ]
        var state: UInt64 = 0x2024_0024
        func random(_ bound: Int) -> Int {
            // SplitMix64.
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
        for _ in 0..<5000 {
            let part = (0..<random(7)).map { _ in pieces[random(pieces.count)] }.joined()
            let foundation = part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            #expect(URLEncodedForm.query("\(part)=\(part)") == [foundation ?? part: [foundation ?? part]], "\(part.debugDescription)")
            #expect(URLEncodedForm.fields(Data("v=\(part)".utf8)) == foundation.map { ["v": [$0]] }, "\(part.debugDescription)")
        }
    }
}
