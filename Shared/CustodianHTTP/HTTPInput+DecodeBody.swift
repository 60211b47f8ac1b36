import CustodianJSON
import CustodianRPC

extension HTTPInput {
    /// Decodes the body as `T`, for routed methods not converted to a typed input yet; a body of the wrong shape is
    /// FastAPI's 422 (``RequestDecoding/fastAPI``), each problem with its location (`["body", "position"]`).
    public func decodeBody<T: Decodable>(as type: T.Type = T.self) throws -> T {
        try RequestDecoding.fastAPI.decode(T.self, from: body, codingPath: [RequestKey.body])
    }
}
