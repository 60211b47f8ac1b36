import CustodianRuntime

enum StatisticsMigrations {
    static let all: [Migration] = [
        Migration(
            1, "reference data, submissions and COVID-19 figures",
            [
                // Supported countries and languages; `active` = offered to apps (a deactivated one stays for old rows).
                """
                CREATE TABLE statistics.countries (
                    alpha2 text PRIMARY KEY CHECK (alpha2 ~ '^[A-Z]{2}$'),
                    name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
                    active boolean NOT NULL DEFAULT true,
                    updated_at timestamptz NOT NULL DEFAULT now())
                """,
                """
                CREATE TABLE statistics.languages (
                    alpha2 text PRIMARY KEY CHECK (alpha2 ~ '^[a-z]{2}$'),
                    name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
                    active boolean NOT NULL DEFAULT true,
                    updated_at timestamptz NOT NULL DEFAULT now())
                """,
                // Symptom keys are what apps send back; a deactivated symptom is no longer offered nor accepted.
                """
                CREATE TABLE statistics.symptoms (
                    key text PRIMARY KEY CHECK (char_length(key) BETWEEN 1 AND 50),
                    position integer NOT NULL DEFAULT 0,
                    active boolean NOT NULL DEFAULT true,
                    updated_at timestamptz NOT NULL DEFAULT now())
                """,
                """
                CREATE TABLE statistics.symptom_translations (
                    symptom_key text NOT NULL REFERENCES statistics.symptoms (key),
                    language text NOT NULL REFERENCES statistics.languages (alpha2),
                    value text NOT NULL CHECK (char_length(value) BETWEEN 1 AND 200),
                    PRIMARY KEY (symptom_key, language))
                """,
                // One row per distinct submission of a device: the device's id is kept only as a SHA-256 (to forget
                // it on request), the body's digest makes a retry find the first row.
                """
                CREATE TABLE statistics.submissions (
                    id bigserial PRIMARY KEY,
                    device_sha256 bytea NOT NULL,
                    body_sha256 bytea NOT NULL,
                    status text CHECK (status IN ('Positive', 'Negative', 'I Don''t Know', 'Recovered')),
                    positive_test_date timestamptz,
                    negative_test_date timestamptz,
                    country text,
                    language text,
                    age integer CHECK (age BETWEEN 0 AND 200),
                    is_symptomatic boolean,
                    symptoms text[] NOT NULL DEFAULT '{}',
                    submitted_at timestamptz NOT NULL DEFAULT now(),
                    UNIQUE (device_sha256, body_sha256))
                """,
                "CREATE INDEX submissions_by_time ON statistics.submissions (submitted_at)",
                // One figure per country and day; a re-import of the day replaces it.
                """
                CREATE TABLE statistics.covid_figures (
                    country text NOT NULL REFERENCES statistics.countries (alpha2),
                    day date NOT NULL,
                    confirmed bigint NOT NULL CHECK (confirmed >= 0),
                    deaths bigint NOT NULL CHECK (deaths >= 0),
                    recovered bigint CHECK (recovered >= 0),
                    source text NOT NULL,
                    source_url text,
                    imported_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (country, day))
                """,
                "INSERT INTO statistics.countries (alpha2, name) VALUES "
                    + countries.map { "('\($0.0)', '\($0.1.replacingOccurrences(of: "'", with: "''"))')" }.joined(separator: ", "),
                "INSERT INTO statistics.languages (alpha2, name) VALUES " + languages.map { "('\($0.0)', '\($0.1)')" }.joined(separator: ", "),
                "INSERT INTO statistics.symptoms (key, position) VALUES "
                    + symptoms.enumerated().map { "('question_positive_symptom-\($0.offset + 1)', \($0.offset + 1))" }.joined(separator: ", "),
                "INSERT INTO statistics.symptom_translations (symptom_key, language, value) VALUES "
                    + symptoms.enumerated().flatMap { index, names in
                        [("en", names.en), ("de", names.de)].map { "('question_positive_symptom-\(index + 1)', '\($0.0)', '\($0.1)')" }
                    }.joined(separator: ", "),
            ]),
        Migration(2, "retention totals", [Retention.totalsTable(schema: "statistics")]),
        // Synthetic data (docs/operations.md): the app instances `auth` registered as synthetic, by the digest their
        // submissions carry, so that the researchers' counts and export leave their submissions out.
        Migration(
            20, "synthetic app instances",
            [
                "CREATE TABLE statistics.synthetic_devices (device_sha256 bytea PRIMARY KEY)"
            ]),
        // The researchers' list of imported figures (docs/admin.md, "GET /admin/v1/statistics/covid"): newest day first
        // across countries; one country's days come from the primary key.
        Migration(21, "covid figures by day", ["CREATE INDEX covid_figures_by_day ON statistics.covid_figures (day DESC, country)"]),
    ]

    /// The countries a new deployment supports (English names); admins add more.
    static let countries: [(String, String)] = [
        ("AR", "Argentina"), ("AT", "Austria"), ("AU", "Australia"), ("BE", "Belgium"), ("BG", "Bulgaria"), ("BR", "Brazil"),
        ("BW", "Botswana"), ("CA", "Canada"), ("CH", "Switzerland"), ("CN", "China"), ("CY", "Cyprus"), ("CZ", "Czechia"),
        ("DE", "Germany"), ("DK", "Denmark"), ("EE", "Estonia"), ("EG", "Egypt"), ("ES", "Spain"), ("FI", "Finland"),
        ("FR", "France"), ("GB", "United Kingdom"), ("GR", "Greece"), ("HR", "Croatia"), ("HU", "Hungary"), ("IE", "Ireland"),
        ("IL", "Israel"), ("IN", "India"), ("IS", "Iceland"), ("IT", "Italy"), ("JP", "Japan"), ("KE", "Kenya"),
        ("KR", "South Korea"), ("LI", "Liechtenstein"), ("LS", "Lesotho"), ("LT", "Lithuania"), ("LU", "Luxembourg"),
        ("LV", "Latvia"), ("MT", "Malta"), ("MX", "Mexico"), ("MZ", "Mozambique"), ("NA", "Namibia"), ("NG", "Nigeria"),
        ("NL", "Netherlands"), ("NO", "Norway"), ("NZ", "New Zealand"), ("PL", "Poland"), ("PT", "Portugal"), ("RO", "Romania"),
        ("RU", "Russia"), ("SE", "Sweden"), ("SI", "Slovenia"), ("SK", "Slovakia"), ("SZ", "Eswatini"), ("TR", "Turkey"),
        ("UA", "Ukraine"), ("US", "United States"), ("ZA", "South Africa"), ("ZM", "Zambia"), ("ZW", "Zimbabwe"),
    ]

    static let languages: [(String, String)] = [
        ("af", "Afrikaans"), ("de", "German"), ("en", "English"), ("es", "Spanish"), ("fr", "French"), ("it", "Italian"),
        ("nl", "Dutch"), ("pt", "Portuguese"), ("zu", "Zulu"),
    ]

    /// `question_positive_symptom-1` … `-12`, in this order, in English and German.
    static let symptoms: [(en: String, de: String)] = [
        ("Sore throat", "Halsschmerzen"),
        ("Fever", "Fieber"),
        ("Dry cough", "Trockener Husten"),
        ("Shortness of breath", "Kurzatmigkeit"),
        ("Tiredness", "Müdigkeit"),
        ("Aches and pains", "Glieder- und Muskelschmerzen"),
        ("Headache", "Kopfschmerzen"),
        ("Chills", "Schüttelfrost"),
        ("Runny or stuffy nose", "Schnupfen"),
        ("Diarrhoea", "Durchfall"),
        ("Loss of taste", "Geschmacksverlust"),
        ("Loss of smell", "Geruchsverlust"),
    ]
}
