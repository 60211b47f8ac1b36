/// Payloads the round-trip tests encode: what the platform's QR codes carry, and what would break a careless encoder.
enum Payloads {
    static let all: [(name: String, bytes: [UInt8])] = [
        ("ASCII", Array("HELLO WORLD 123".utf8)),
        ("URL", Array("https://custodian.example.org/l/7kq2m9xv4hbw3tnc".utf8)),
        ("UTF-8", Array("Grüße uit Zwolle — 温度 🌡️".utf8)),
        // A Twomes device's provisioning QR code, as the WarmteWachter app scans it.
        ("device JSON", Array(#"{"ver":"v1","name":"TWOMES-0D45DF","pop":"810667973","transport":"ble"}"#.utf8)),
        // Every byte value, NUL and invalid UTF-8 included: 8-bit mode must carry them unchanged.
        ("all bytes", (0...255).map { UInt8($0) }),
    ]
}
