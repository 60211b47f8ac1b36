import CustodianContracts

/// The text of a device's QR label (docs/twomes.md, "Provisioning steps", B4), for Espressif's Unified Provisioning: the app reads the
/// device name (BLE service name or SSID) and `pop`, the device's activation token. Written exactly as the
/// document shows it (Python's `json.dumps` separators, non-ASCII escaped).
enum ProvisioningPayload {
    static func text(name: String, pop: String, transport: LabelTransport) -> String {
        var fields: [(String, String)] = [("ver", "v1"), ("name", name), ("pop", pop), ("transport", transport.rawValue)]
        if transport == .softap {
            // The temporary access point is secured with the same secret.
            fields += [("security", "1"), ("password", pop)]
        }
        return "{" + fields.map { "\(quote($0.0)): \(quote($0.1))" }.joined(separator: ", ") + "}"
    }

    /// A JSON string literal as `json.dumps` writes it (ensure_ascii).
    static func quote(_ text: String) -> String {
        var result = "\""
        for unit in text.utf16 {
            switch unit {
            case 0x22: result += "\\\""
            case 0x5C: result += "\\\\"
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case 0x09: result += "\\t"
            case 0x08: result += "\\b"
            case 0x0C: result += "\\f"
            case 0x20..<0x7F: result.unicodeScalars.append(Unicode.Scalar(unit)!)
            default: result += "\\u" + String(unit, radix: 16).leftPadded(to: 4)
            }
        }
        return result + "\""
    }
}

private extension String {
    func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
