import CustodianRPC
import CustodianRuntime

/// Activation links (and, with the provisioning issue, QR codes and the self-hosted link resolver).
public enum LinksService {
    public static let definition = ServiceDefinition(name: "links") { environment in
        let links = try ActivationLinks(accountTemplate: environment.configuration.string(
            "CUSTODIAN_ACCOUNT_ACTIVATION_URL_TEMPLATE", default: ActivationLinks.twomesAccountTemplate))
        var methods = RPCMethods()
        methods.register("links.activation.mint", input: MintActivationLinkInput.self) { input, _ in
            guard input.kind == "account" else {
                throw RPCError.badRequest("unknown activation link kind '\(input.kind)'")
            }
            guard !input.token.isEmpty, input.token.count <= 1024 else {
                throw RPCError.badRequest("an activation token must have 1 to 1024 characters")
            }
            return ActivationLink(url: links.accountActivationURL(token: input.token))
        }
        return methods
    }
}
