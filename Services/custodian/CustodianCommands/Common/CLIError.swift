/// A failure a command reports as one line (`Error: …`) and exit status 1, without its usage: the command was used
/// rightly, but something it met was wrong (a file, the server's answer). Wrong usage is a `ValidationError`.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
