import CustodianContracts
import CustodianHTTP

/// Every admin method the console calls, by its descriptor. ConsolePartsTests checks that each has exactly one route in
/// `RouteTable.all`, answering as its result's type says, and that the console's files call no descriptor missing here:
/// a page cannot name a method the gateway does not route.
enum ConsoleMethods {
    static let all: [any RouteTarget] = [
        // Twomes
        DevicesMethods.accountsList, DevicesMethods.accountCreate, DevicesMethods.devicesList, DevicesMethods.deviceCreate,
        DevicesMethods.deviceTypesList, DevicesMethods.deviceLabels, DevicesMethods.measurementsExport, DevicesMethods.accountDetail,
        DevicesMethods.deviceDetail, DevicesMethods.accountReissue, DevicesMethods.accountsCohort,
        // OpenSense
        DevicesMethods.opensenseDevices, DevicesMethods.opensenseDevice, DevicesMethods.opensenseConfig, DevicesMethods.opensenseReplaceConfig,
        DevicesMethods.opensenseExport,
        // The data vault
        VaultMethods.adminUsers, AuthMethods.vaultUsersCreate, VaultMethods.adminCreateModule, VaultMethods.adminCreateRepo,
        VaultMethods.adminGrant, VaultMethods.adminModuleQR,
        // API consumers, short links and QR codes
        RoutesMethods.consumersList, RoutesMethods.consumersCreate, LinksMethods.shortList, LinksMethods.shortHttpCreate, LinksMethods.qrHttp,
        // LEMON
        StatisticsMethods.adminSubmissionsCounts, StatisticsMethods.adminSubmissionsExport, StatisticsMethods.adminCovidImport,
        StatisticsMethods.adminCovidList,
        // Administration
        AuthMethods.auditList, AuthMethods.tokensList, AuthMethods.tokensCreate, AuthMethods.tokensRevoke,
        // Erasure
        DevicesMethods.accountErase, DevicesMethods.deviceErase, DevicesMethods.opensenseErase, AuthMethods.vaultUsersErase,
        AuthMethods.lemonAppsErase, DevicesMethods.deviceDetach, RoutesMethods.consumersRevoke, LinksMethods.shortRevoke,
    ]
}
