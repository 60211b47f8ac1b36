import CustodianContracts
import CustodianRPC

extension QRRenderInput {
    /// Refuses values out of range, in the method's own terms.
    func validate() throws {
        guard !payload.isEmpty else {
            throw RPCError.badRequest("payload must not be empty", reason: "missing_data")
        }
        guard Self.moduleSizes.contains(moduleSize) else {
            throw RPCError.badRequest("moduleSize must be from 1 to 64 pixels, not \(moduleSize)", reason: "invalid_module_size")
        }
        guard Self.margins.contains(margin) else {
            throw RPCError.badRequest("margin must be from 0 to 16 modules, not \(margin)", reason: "invalid_margin")
        }
    }
}
