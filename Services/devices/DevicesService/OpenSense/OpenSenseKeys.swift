/// The storage key an OpenSense app encrypts its local data with (docs/opensense.md, "POST /register"): 40 characters over the
/// thesis' alphabet, here drawn from the system CSPRNG (the thesis used Math.random), with its rule that no
/// character repeats the one before.
enum OpenSenseKeys {
    static let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@#$%")
    static let length = 40

    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        var key: [Character] = []
        while key.count < length {
            let next = alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]
            if next != key.last { key.append(next) }
        }
        return String(key)
    }
}
