import Foundation

public enum FreePort {
    /// A TCP port on 127.0.0.1 that nobody listens on right now.
    public static func find() throws -> Int {
        guard let port = bind(port: 0) else { throw POSIXError(.EADDRINUSE) }
        return port
    }

    /// Whether a server could listen on `port` of 127.0.0.1 now: nobody else listens there. With `SO_REUSEADDR`, as
    /// servers bind, so that connections of an earlier run still closing do not count.
    public static func isFree(_ port: Int) -> Bool {
        (1...65535).contains(port) && bind(port: port) != nil
    }

    /// Binds a socket to `port` (0: any) and returns the port it got, then closes it; nil when the bind failed.
    private static func bind(port: Int) -> Int? {
        let socket = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        var reuse: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard Glibc.bind(socket, pointer, length) == 0, listen(socket, 1) == 0 else { return -1 }
                return getsockname(socket, pointer, &length)
            }
        }
        guard bound == 0 else { return nil }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
