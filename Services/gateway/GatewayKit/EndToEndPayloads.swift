import CustodianContracts
import CustodianHTTP
import CustodianJSON
import CustodianLemon
import CustodianRPC
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The tracing API's end-to-end encryption (docs/lemon.md, "End-to-end payloads"): after the token is verified, the body is
/// checked (MAC first, in constant time) and decrypted with the session's keys, its IV admitted once by `auth`,
/// and the service's answer — success or error — sealed with the same keys. Requests that fail before the
/// session is established or before the payload is proven get a plaintext envelope, as the app could not
/// trust anything else.
extension RouteForwarder {
    func respondEncrypted(to request: Request, context: GatewayRequestContext) async throws -> Response {
        var callContext = callContext(for: context)
        try await authenticator.authenticate(route, request: request, body: nil, context: &callContext)
        guard let principal = callContext.principal, let session = principal.session else {
            throw GatewayError(status: .unauthorized, reason: "invalid_token", message: "Missing or Invalid JWT", style: route.style)
        }
        let rawBody = try await collectBody(of: request)
        let payload: EncryptedPayload?
        do {
            payload = rawBody.readableBytes > 0 ? try EncryptedPayload(body: rawBody.readableBytesView) : nil
        } catch {
            try await requireLiveSession(session, device: principal.id, context: callContext)
            throw GatewayError(status: .badRequest, reason: "invalid_payload", message: error.description, style: route.style)
        }

        let keys: SessionKeys
        do {
            keys = try await sessionKeys.keys(session: session, device: principal.id, rpc: rpc, context: callContext)
        } catch let error as RPCError {
            throw GatewayError(error, style: route.style)
        }
        var plaintext: Data?
        if let payload {
            do {
                plaintext = try Spans.measure("lemon open payload") { () throws(EncryptedPayloadError) in try payload.open(keys: keys) }
            } catch {
                // The keys are cached beyond the session's end: an ended session is the answer, not the payload's fault.
                try await requireLiveSession(session, device: principal.id, context: callContext)
                throw GatewayError(status: .badRequest, reason: "invalid_payload", message: error.description, style: route.style)
            }
        }
        do {
            let admission = SessionInput(session: session, device: principal.id, iv: payload.map { Data($0.iv).base64EncodedString() })
            _ = try await rpc.call(AuthMethods.lemonSessionUse, input: admission, context: callContext)
        } catch let error as RPCError {
            throw GatewayError(error, style: route.style)
        }

        // From here on the app can read what we say only with its session keys, so every answer is sealed.
        do {
            if let plaintext, let limit = route.maximumPlaintextSize, plaintext.count > limit {
                throw GatewayError(
                    status: .contentTooLarge, reason: "body_too_large", message: "The request body exceeds \(limit) bytes", style: route.style)
            }
            let body = try plaintext.map { try Self.json($0, style: route.style) } ?? .null
            let input = try admitted(
                HTTPInput(body: body, path: pathParameters(context), query: queryParameters(request), headers: forwardedHeaders(request)),
                principal: principal)
            let result = try await rpc.call(route.service, route.rpcMethod, input: input, context: callContext, as: JSONValue.self)
            return sealed(route.style.successBody(result, status: route.successStatus), status: route.successStatus, keys: keys)
        } catch let error as RPCError {
            return sealed(serviceError(error, logger: context.logger), keys: keys)
        } catch let error as GatewayError {
            return sealed(error, keys: keys)
        }
    }

    /// Whether the session is still live (`auth` answers 401 when it has ended), without admitting an IV.
    private func requireLiveSession(_ session: String, device: String, context: CallContext) async throws {
        do {
            _ = try await rpc.call(AuthMethods.lemonSessionUse, input: SessionInput(session: session, device: device, iv: nil), context: context)
        } catch let error as RPCError {
            throw GatewayError(error, style: route.style)
        }
    }

    private func sealed(_ error: GatewayError, keys: SessionKeys) -> Response {
        var response = sealed(
            route.style.errorBody(status: error.status, reason: error.reason, message: error.message, details: error.details),
            status: error.status, keys: keys)
        response.headers.append(contentsOf: error.headers)
        return response
    }

    private func sealed(_ body: JSONValue, status: HTTPResponse.Status, keys: SessionKeys) -> Response {
        let text = Spans.measure("lemon seal answer") { EncryptedPayload.seal(Data(body.jsonBytes), keys: keys).base64 }
        return Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

/// Session keys by session id. Keys never change during a session, so a gateway asks `auth` for them once;
/// whether the session is still live is asked on every request (`AuthMethods.lemonSessionUse`).
actor SessionKeyCache {
    private var keys: [String: SessionKeys] = [:]
    /// Plenty for one replica's live sessions; when full it starts over rather than keep an eviction order.
    private let capacity: Int

    init(capacity: Int = 50_000) {
        self.capacity = capacity
    }

    func keys(session: String, device: String, rpc: RPCClient, context: CallContext) async throws -> SessionKeys {
        if let known = keys[session] { return known }
        let wire = try await rpc.call(AuthMethods.lemonSessionKeys, input: SessionInput(session: session, device: device), context: context)
        guard let fetched = wire.keys else { throw RPCError.internal("auth sent malformed session keys") }
        if keys.count >= capacity { keys.removeAll() }
        keys[session] = fetched
        return fetched
    }
}
