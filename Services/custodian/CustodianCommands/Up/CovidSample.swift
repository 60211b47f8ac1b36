/// The demo COVID-19 figures `custodian up` imports into a new data directory: `Deploy/demo/covid-sample.csv`,
/// kept here so that the executable needs no file beside it (StatisticsTests checks the two are the same).
/// Illustrative figures in the shape of public daily case data, not a source to quote.
enum CovidSample {
    static let source = "Custodian demo sample"
    static let sourceURL = "https://github.com/CSSEGISandData/COVID-19"
    static let csv = """
        country,date,confirmed,deaths,recovered
        ZA,2020-05-15,13524,247,6083
        ZA,2020-05-16,14355,261,6478
        ZA,2020-05-17,16433,286,7298
        GB,2020-05-15,238004,34078,
        GB,2020-05-16,241461,34466,
        GB,2020-05-17,244995,34636,
        DE,2020-05-15,174975,7928,150300
        DE,2020-05-16,175233,7938,151597
        DE,2020-05-17,175752,7962,152600
        AT,2020-05-15,16058,628,14405
        AT,2020-05-16,16109,629,14563
        AT,2020-05-17,16201,629,14638
        US,2020-05-15,1442824,87530,250747
        US,2020-05-16,1467820,88754,268376
        US,2020-05-17,1486757,89562,272265
        """
}
