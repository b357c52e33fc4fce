package cluster

// The environment of the Bank of Sirius services, after the manifests of
// bank-of-sirius v1.3.0 that MARA deployed; passwords come from Secrets.

// pythonEnv is the environment of a Python service named app.
func pythonEnv(s siriusSettings, app string, extra ...any) []any {
	env := append(tracingEnv(),
		plainEnv("VERSION", SiriusVersion),
		plainEnv("PORT", "8080"),
		plainEnv("STATSD_HOST", s.statsdHost),
		plainEnv("STATSD_PREFIX", "bos."+app),
		plainEnv("LOG_LEVEL", "info"),
		plainEnv("APP_NAME", app),
	)
	return append(env, extra...)
}

// javaEnv is the environment of a Java service named app, which reads the
// ledger database with the ledger password.
func javaEnv(s siriusSettings, app string, extra ...any) []any {
	env := append(tracingEnv(),
		plainEnv("VERSION", SiriusVersion),
		plainEnv("PORT", "8080"),
		plainEnv("JVM_OPTS", "-XX:+UnlockExperimentalVMOptions -XX:+UseCGroupMemoryLimitForHeap"),
		plainEnv("LOG_LEVEL", "info"),
		plainEnv("APP_NAME", app),
		fieldEnv("NAMESPACE", "metadata.namespace"),
		secretEnv("SPRING_DATASOURCE_PASSWORD", s.groupSecret, ledgerPwdKey),
	)
	return append(env, extra...)
}

// siriusServices are the application's services and its load generator.
func siriusServices(s siriusSettings) []workload {
	accountsURI := secretEnv("ACCOUNTS_DB_URI", credentialsSecretName, "ACCOUNTS_DB_URI")
	python := []int{10, 10}
	java := []int{60, 120}
	return []workload{
		{
			name: "frontend", container: "front", image: siriusImage("frontend"), port: 8080, svcPort: 80,
			env: pythonEnv(s, "frontend",
				plainEnv("SCHEME", "http"),
				plainEnv("BANK_NAME", "Bank of Sirius"),
				secretEnv("DEFAULT_USERNAME", credentialsSecretName, "DEMO_LOGIN_USERNAME"),
				secretEnv("DEFAULT_PASSWORD", s.groupSecret, demoLoginPwdKey)),
			envFrom: []string{"environment-config", "service-api-config"},
			keys:    publicKey, probeDelays: []int{10, 60},
		},
		{
			name: "userservice", image: siriusImage("userservice"), port: 8080,
			env: pythonEnv(s, "userservice", accountsURI,
				plainEnv("TOKEN_EXPIRY_SECONDS", "3600"),
				plainEnv("PRIV_KEY_PATH", "/root/.ssh/privatekey")),
			envFrom: []string{"environment-config", "accounts-db-config"},
			keys:    bothKeys, probeDelays: python,
		},
		{
			name: "contacts", image: siriusImage("contacts"), port: 8080,
			env:     pythonEnv(s, "contacts", accountsURI),
			envFrom: []string{"environment-config", "accounts-db-config"},
			keys:    publicKey, probeDelays: python,
		},
		{
			name: "balancereader", image: siriusImage("balancereader"), port: 8080,
			env: javaEnv(s, "balance-reader",
				plainEnv("POLL_MS", "100"), plainEnv("CACHE_SIZE", "1000000")),
			envFrom: []string{"environment-config", "ledger-db-config"},
			keys:    publicKey, probeDelays: java,
		},
		{
			name: "ledgerwriter", image: siriusImage("ledgerwriter"), port: 8080,
			env:     javaEnv(s, "ledger-writer"),
			envFrom: []string{"environment-config", "service-api-config", "ledger-db-config"},
			keys:    publicKey, probeDelays: java,
		},
		{
			name: "transactionhistory", image: siriusImage("transactionhistory"), port: 8080,
			env: javaEnv(s, "transaction-history",
				plainEnv("POLL_MS", "100"), plainEnv("CACHE_SIZE", "1000"),
				plainEnv("CACHE_MINUTES", "60"), plainEnv("HISTORY_LIMIT", "100")),
			envFrom: []string{"environment-config", "ledger-db-config"},
			keys:    publicKey, probeDelays: java,
		},
		{
			// Locust's web UI, on the Service's port 8089: it sends load
			// to the frontend once started from there.
			name: "loadgenerator", image: siriusImage("loadgenerator"), port: 8089,
			env:     []any{plainEnv("LOG_LEVEL", "error")},
			command: []string{"locust"},
		},
	}
}
