import Foundation

/// The one test every service applies to a URL a client gives it to store and hand out (a manual's address, a
/// module's, a data source's, an app's): an absolute URI as RFC 3986 writes it — printable ASCII only, so an
/// internationalised address comes percent-encoded or in punycode, never as raw UTF-8 that other clients cannot
/// read (Foundation alone accepts `http://ô`).
public enum WebURL {
    /// `http(s)://host…` of at most `maximumLength` characters.
    public static func isWeb(_ text: String, maximumLength: Int = 2048) -> Bool {
        guard let url = parse(text, maximumLength: maximumLength), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
        else { return false }
        return true
    }

    /// Any absolute URL (`warmtewachter://…` too) in printable ASCII, or nil.
    public static func parse(_ text: String, maximumLength: Int = 2048) -> URL? {
        guard !text.isEmpty, text.utf8.count <= maximumLength,
            text.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }),
            let url = URL(string: text), url.scheme?.first?.isLetter == true
        else { return nil }
        return url
    }
}
