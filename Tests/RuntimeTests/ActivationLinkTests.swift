import Testing
@testable import LinksService

@Suite("Activation links")
struct ActivationLinkTests {
    @Test func theTwomesLinkCarriesTheURLEncodedToken() throws {
        let links = try ActivationLinks()
        // Step A3 (docs/twomes.md, "firebase_url"): the token goes URL-encoded into the `link` parameter.
        #expect(
            try links.url(token: "a/b+c=d") == "https://energietransitiewindesheim.page.link/?link=https%3A%2F%2Faccount%2Fa%2Fb%2Bc%3Dd"
                + "&apn=nl.windesheim.energietransitie.warmtewachter&ibi=nl.windesheim.energietransitie.warmtewachter&isi=1563201993&efr=1")
    }

    @Test func accountsGetThePlatformsOwnShortLinkByDefaultAndFirebaseByName() throws {
        let links = try ActivationLinks(configuration: ["CUSTODIAN_ACCOUNT_APP_URL_TEMPLATE": "https://app.example.org/account/{token}"])
        #expect(ActivationLinks.defaultTemplateName == "twomes-short-link")
        #expect(links.shortLinkTemplates == ["twomes-short-link"])
        #expect(try links.url(template: "twomes-short-link", token: "t/1") == "https://app.example.org/account/t%2F1")
        #expect(try links.url(template: "twomes-account", token: "t").hasPrefix("https://energietransitiewindesheim.page.link/"))
        #expect(try ActivationLinks().url(template: "twomes-short-link", token: "t") == "warmtewachter://account/t")
    }

    @Test func nonASCIICharactersArePercentEncodedAsUTF8() throws {
        #expect(ActivationLinks.urlEncode("é ü") == "%C3%A9%20%C3%BC")
    }

    @Test func namedTemplatesComeFromTheEnvironment() throws {
        let links = try ActivationLinks(configuration: [
            "CUSTODIAN_LINK_TEMPLATE_STUDY_APP": "https://study.example.org/activate/{token}",
            "CUSTODIAN_ACCOUNT_ACTIVATION_URL_TEMPLATE": "https://links.example.org/a/{token}",
            "CUSTODIAN_OTHER": "ignored",
        ])
        #expect(try links.url(template: "study-app", token: "tok_en-1") == "https://study.example.org/activate/tok_en-1")
        #expect(try links.url(token: "t") == "https://links.example.org/a/t", "the Twomes default can be overridden")
        #expect(throws: (any Error).self) { try links.url(template: "nope", token: "t") }
        #expect(throws: (any Error).self) { try ActivationLinks(templates: ["bad": "https://links.example.org/"]) }
    }
}
