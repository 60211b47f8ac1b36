import Foundation
import HTTPTypes
import NIOCore

/// An IPv4 or IPv6 address, or a CIDR range of them (`10.0.0.0/8`, `fd00::/8`, `127.0.0.1`).
public struct AddressRange: Sendable, Equatable {
    let network: [UInt8]
    let prefixLength: Int

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first, let network = Self.bytes(of: String(first)) else { return nil }
        let bits = network.count * 8
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...bits).contains(length) else { return nil }
            prefixLength = length
        } else {
            prefixLength = bits
        }
        self.network = network
    }

    public func contains(_ address: String) -> Bool {
        guard let bytes = Self.bytes(of: address), bytes.count == network.count else { return false }
        var remaining = prefixLength
        for (mine, theirs) in zip(network, bytes) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if mine & mask != theirs & mask { return false }
            remaining -= 8
        }
        return true
    }

    /// An address's bytes: 4 for IPv4, 16 for IPv6; an IPv4-mapped IPv6 address counts as its IPv4 address.
    static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            let bytes = withUnsafeBytes(of: &v6) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return Array(bytes[12...]) }
            return bytes
        }
        return nil
    }
}

/// Who a request comes from, for rate limits and logs: the socket's peer, or — when the peer is a trusted proxy —
/// the nearest address in `X-Forwarded-For` that is not a trusted proxy itself.
enum ClientAddress {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    static func of(peer: SocketAddress?, headers: HTTPFields, trustedProxies: [AddressRange]) -> String {
        guard let peerAddress = peer?.ipAddress else { return "unknown" }
        var client = normalised(peerAddress)
        guard trustedProxies.contains(where: { $0.contains(client) }) else { return client }
        // Each proxy appends the address it got the request from: read from the right, skipping our own proxies.
        let chain = headers[values: forwardedFor].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in chain.reversed() {
            guard AddressRange.bytes(of: hop) != nil else { break }
            client = normalised(hop)
            if !trustedProxies.contains(where: { $0.contains(client) }) { break }
        }
        return client
    }

    /// IPv4-mapped IPv6 addresses as IPv4, so that one client has one key.
    private static func normalised(_ address: String) -> String {
        if address.hasPrefix("::ffff:"), AddressRange.bytes(of: address)?.count == 4 { return String(address.dropFirst(7)) }
        return address
    }
}
