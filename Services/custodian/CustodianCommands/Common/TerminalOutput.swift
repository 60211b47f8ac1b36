import Foundation

/// Lines for the person (or test) watching `custodian up` in a terminal, written at once even when stdout is a pipe.
/// (The gateway's "console" is the researchers' web UI; this is only the command line's printer.)
enum TerminalOutput {
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func warn(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// A program's name as the first column: padded to ten characters, never cut (`statistics-2`).
    static func column(_ name: String) -> String {
        name + String(repeating: " ", count: max(1, 11 - name.count))
    }
}
