#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#else
    import Darwin
#endif
import NIOPosix

/// The addresses a name stands for, each a replica: what a Kubernetes headless Service's name resolves to (one A or
/// AAAA record per ready pod). Resolved with the system's resolver on NIO's pool for blocking work, never on an event
/// loop, since a lookup may wait seconds for a slow DNS server.
enum NameResolution {
    static func endpoints(host: String, port: Int) async -> [Endpoint] {
        (try? await NIOThreadPool.singleton.runIfActive { lookUp(host: host, port: port) }) ?? []
    }

    /// The name's TCP endpoints, IPv4 and IPv6, without duplicates; none when the name does not resolve.
    static func lookUp(host: String, port: Int) -> [Endpoint] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
            hints.ai_socktype = SOCK_STREAM
        #else
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &results) == 0, let first = results else { return [] }
        defer { freeaddrinfo(first) }
        var endpoints: [Endpoint] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            next = entry.pointee.ai_next
            guard let address = entry.pointee.ai_addr else { continue }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            let written: UnsafePointer<CChar>?
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                written = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                    var raw = ipv4.pointee.sin_addr
                    return inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
                }
            case AF_INET6:
                written = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                    var raw = ipv6.pointee.sin6_addr
                    return inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
                }
            default:
                written = nil
            }
            guard written != nil else { continue }
            let endpoint = Endpoint.tcp(host: text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }, port: port)
            if !endpoints.contains(endpoint) { endpoints.append(endpoint) }
        }
        return endpoints
    }
}
