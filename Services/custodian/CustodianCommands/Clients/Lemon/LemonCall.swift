import ArgumentParser
import AsyncHTTPClient
import CustodianLemon
import Foundation
import LemonClient
import NIOHTTP1

extension Lemon {
    /// `custodian lemon call`: one call to the tracing API with the handshake and the sealing an app does, so that
    /// app developers can try a route from a shell before they have written any of the crypto.
    struct Call: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Makes one sealed call to the tracing app's API as an app does, and prints the opened answer.",
            discussion: """
                The first call registers a new app instance (POST /api/v1/devices) and keeps its id and key in the \
                --identity file (mode 0600); later calls authenticate that instance again, each in a new session. \
                BODY is sealed with the session's keys and the answer opened with them: the HTTP status goes to \
                stderr, the answer's JSON to stdout. The exit status is 0 for a 2xx answer and 1 for any other. The \
                server's public keys are read from --keys, or else fetched from GET /api/v1/keys over the verified \
                TLS connection. A successful DELETE /api/v1/devices deletes the instance, and its identity file with it.
                """)

        static let methods: [String: HTTPMethod] = ["GET": .GET, "POST": .POST, "DELETE": .DELETE]

        @Argument(help: "GET, POST or DELETE.") var method: String
        @Argument(help: "The route and its query, under /api/v1/: /api/v1/symptoms?language=de.") var path: String
        @Argument(help: "The request's JSON, before sealing; @FILE reads it from a file, - from standard input.") var body: String?
        @Option(help: "The gateway's URL.") var server = TLSTrustOptions.defaultServer
        @Option(help: "The app instance's id and key: reused when the file exists, made and registered when it does not.")
        var identity = LemonIdentity.defaultPath
        @Option(
            help:
                "The server's public keys to pin: a file as `custodian lemon keys show` prints them, a GET /api/v1/keys answer or a server key file (default: fetched from the server)."
        )
        var keys: String?
        @OptionGroup var trust: TLSTrustOptions

        func validate() throws {
            guard Self.methods[method.uppercased()] != nil else {
                throw ValidationError("METHOD is GET, POST or DELETE (the methods of the tracing API), not '\(method)'")
            }
            try Self.checkPath(path)
            if body != nil && method.uppercased() != "POST" {
                throw ValidationError("\(method.uppercased()) requests of the tracing API have no body; give parameters in PATH's query")
            }
        }

        func run() async throws {
            let httpMethod = Self.methods[method.uppercased()]!
            let plaintext = try body.map(Self.readBody)
            let server = server.hasSuffix("/") ? String(server.dropLast()) : server
            let known = try LemonIdentity.load(identity)
            let pinned = try keys.map(Self.readKeys)

            let http = try trust.httpClient()
            let outcome: Result<Exchange, any Error>
            do {
                outcome = .success(try await exchange(http: http, server: server, method: httpMethod, body: plaintext, known: known, pinned: pinned))
            } catch {
                outcome = .failure(error)
            }
            try? await http.shutdown()
            let exchange = try outcome.mapError { error -> any Error in
                switch error {
                case let error as CLIError: error
                case let error as LemonClientError: CLIError("\(error)")
                default: trust.explain(error, server: server)
                }
            }.get()

            let reason = HTTPResponseStatus(statusCode: exchange.status).reasonPhrase
            guard let reply = exchange.reply else {
                TerminalOutput.warn("\(exchange.status) \(reason)")
                throw CLIError(
                    "the answer could not be opened (\(exchange.problem ?? "")): \(String(decoding: exchange.raw.prefix(500), as: UTF8.self))")
            }
            // Which of the two it was tells an app developer which of their code paths the answer takes.
            TerminalOutput.warn("\(exchange.status) \(reason) (\(reply.wasEncrypted ? "sealed" : "in the clear"))")
            TerminalOutput.say(IndentedJSON.format(reply.json))
            let succeeded = (200..<300).contains(exchange.status)
            if succeeded && httpMethod == .DELETE && path.prefix(while: { $0 != "?" }) == "/api/v1/devices" {
                // The instance is gone on the server; its identity could only fail to authenticate from now on.
                try? FileManager.default.removeItem(atPath: identity)
                TerminalOutput.warn("the app instance is deleted, and its identity file \(identity) with it; the next call registers a new one")
            }
            if !succeeded { throw ExitCode(1) }
        }

        struct Exchange: Sendable {
            var status: Int
            var raw: Data
            var reply: LemonReply?
            var problem: String?
        }

        private func exchange(
            http: HTTPClient, server: String, method: HTTPMethod, body: Data?,
            known: LemonIdentity?, pinned: [ServerPublicKey]?
        ) async throws -> Exchange {
            let published: [ServerPublicKey]
            if let pinned {
                published = pinned
            } else {
                published = try await LemonClient.publishedKeys(baseURL: server, http: http)
            }
            guard let serverKey = published.first else { throw CLIError("there is no server key to pin") }
            let client = LemonClient(baseURL: server, http: http, serverKey: serverKey)
            let session = try await self.session(client, server: server, known: known)

            let sealed = body.map { Data(EncryptedPayload.seal($0, keys: session.keys).base64.utf8) }
            let answer = try await LemonClient.send(
                http: http, url: server + path, method: method,
                headers: [("Authorization", "Bearer \(session.accessToken)"), ("Content-Type", "text/plain")], body: sealed)
            do {
                return Exchange(
                    status: answer.status, raw: answer.body, reply: try LemonReply(status: answer.status, body: answer.body, keys: session.keys))
            } catch {
                return Exchange(status: answer.status, raw: answer.body, problem: "\(error)")
            }
        }

        /// Authenticates the known instance, or registers a new one and keeps it.
        private func session(_ client: LemonClient, server: String, known: LemonIdentity?) async throws -> LemonSession {
            if let known {
                do {
                    return try await client.authenticate(try known.app())
                } catch LemonClientError.refused(let status, let message) {
                    throw CLIError(
                        """
                        the server refused to authenticate the app instance in \(identity) (registered with \(known.server) at \
                        \(known.registeredAt)): \(status) \(message). If it was deleted or deactivated, or belongs to another \
                        platform, move the file away (or pass another --identity) to register a new one.
                        """)
                }
            }
            let app = LemonApp.generate()
            let session: LemonSession
            do {
                session = try await client.register(app)
            } catch LemonClientError.refused(let status, let message) {
                throw CLIError("the server refused to register a new app instance: \(status) \(message)")
            }
            try LemonIdentity(app: app, server: server).save(to: identity)
            TerminalOutput.warn("registered a new app instance; its identity is in \(identity)")
            return session
        }
    }
}
