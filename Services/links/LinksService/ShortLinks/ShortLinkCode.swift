/// The code in `/l/<code>`: 16 characters from the system CSPRNG, 80 bits, so nobody finds a link by trying
/// codes. The alphabet is Crockford's base 32 in lower case: URL-safe, and without `i`, `l`, `o` and `u`, so
/// a person who types the code from a screen cannot mistake one letter for another.
enum ShortLinkCode {
    static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")
    static let length = 16

    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        // 32 divides 256, so taking five bits of a random byte favours no character.
        return String((0..<length).map { _ in alphabet[Int(UInt8.random(in: .min ... .max, using: &generator) & 31)] })
    }

    /// The form a code is looked up in: codes are made in lower case, and a person may type capitals.
    /// Nil for anything that cannot be a code, which is then simply not found.
    static func normalized(_ text: String) -> String? {
        let code = text.lowercased()
        guard (10...64).contains(code.count), code.allSatisfy({ alphabet.contains($0) }) else { return nil }
        return code
    }
}
