#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#else
    import Darwin
#endif

/// What tells one socket file from the next one under the same name: a replica replaced, or killed and started again
/// (which leaves its socket behind until the new process replaces it). The inode alone will not do: a file system
/// hands a freed inode to the next file at once.
public enum SocketFile {
    /// The file's inode and change time together; nil when there is no file.
    public static func identity(_ path: String) -> UInt64? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let changed = UInt64(truncatingIfNeeded: status.st_ctim.tv_sec) &* 1_000_000_000 &+ UInt64(truncatingIfNeeded: status.st_ctim.tv_nsec)
        return UInt64(status.st_ino) &* 0x9E37_79B9_7F4A_7C15 ^ changed
    }
}
