import Testing
@testable import LinksService

@Suite("Activation links")
struct ActivationLinkTests {
    @Test func theTwomesLinkCarriesTheURLEncodedToken() throws {
        let links = try ActivationLinks()
        // Seed 004, step A3: the token goes URL-encoded into the `link` parameter.
        #expect(links.accountActivationURL(token: "a/b+c=d") ==
            "https://energietransitiewindesheim.page.link/?link=https%3A%2F%2Faccount%2Fa%2Fb%2Bc%3Dd"
            + "&apn=nl.windesheim.energietransitie.warmtewachter&ibi=nl.windesheim.energietransitie.warmtewachter&isi=1563201993&efr=1")
    }

    @Test func nonASCIICharactersArePercentEncodedAsUTF8() throws {
        #expect(ActivationLinks.urlEncode("é ü") == "%C3%A9%20%C3%BC")
    }

    @Test func aSelfHostedTemplateWorksAndOneWithoutThePlaceholderIsRefused() throws {
        let links = try ActivationLinks(accountTemplate: "https://links.example.org/a/{token}")
        #expect(links.accountActivationURL(token: "tok_en-1") == "https://links.example.org/a/tok_en-1")
        #expect(throws: (any Error).self) { try ActivationLinks(accountTemplate: "https://links.example.org/") }
    }
}
