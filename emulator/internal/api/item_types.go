package api

// Fabric's typed item collections: one row per item type folder of
// microsoft/fabric-rest-api-specs whose swagger.json declares
// /workspaces/{workspaceId}/<collection> with create, list, get, update
// and delete (item_types_test.go scans the documents and checks this table
// against them). Every row gets the generic item routes; rows with a
// definition get getDefinition and updateDefinition (definitions_items.go);
// jobs lists the job types Fabric's Job Scheduler runs for the type.

// itemType is one typed collection.
type itemType struct {
	collection string
	typ        string
	// definition: the spec declares …/{id}/getDefinition and updateDefinition.
	definition bool
	// jobs are the type's job types (Job Scheduler jobType); nil: the
	// emulator knows none, and any well-formed job type is accepted.
	jobs []string
}

// itemTypeTable is every typed collection, in the specs' folder order.
var itemTypeTable = []itemType{
	{"anomalyDetectors", "AnomalyDetector", true, nil},
	{"apacheAirflowJobs", "ApacheAirflowJob", true, nil},
	{"appBackends", "AppBackend", false, nil},
	{"azureDatabricksStorages", "AzureDatabricksStorage", true, nil},
	{"copyJobs", "CopyJob", true, nil},
	{"cosmosDbDatabases", "CosmosDBDatabase", true, nil},
	{"dataAgents", "DataAgent", true, nil},
	{"dataBuildToolJobs", "DataBuildToolJob", true, nil},
	{"dataPipelines", "DataPipeline", true, []string{"Pipeline"}},
	{"dataflows", "Dataflow", true, nil},
	{"digitaltwinbuilders", "DigitalTwinBuilder", true, nil},
	{"digitalTwinBuilderFlows", "DigitalTwinBuilderFlow", true, nil},
	{"environments", "Environment", true, nil},
	{"eventSchemaSets", "EventSchemaSet", true, nil},
	{"eventhouses", TypeEventhouse, true, nil},
	{"eventstreams", TypeEventstream, true, nil},
	{"graphModels", "GraphModel", true, nil},
	{"graphQLApis", "GraphQLApi", true, nil},
	{"graphQuerySets", "GraphQuerySet", true, nil},
	{"kqlDashboards", "KQLDashboard", true, nil},
	{"kqlDatabases", TypeKQLDatabase, true, nil},
	{"kqlQuerysets", "KQLQueryset", true, nil},
	{"lakehouses", TypeLakehouse, true, []string{"TableMaintenance", "RefreshMaterializedLakeViews"}},
	{"maps", "Map", true, nil},
	{"mirroredAzureDatabricksCatalogs", "MirroredAzureDatabricksCatalog", true, nil},
	{"mirroredCatalogs", "MirroredCatalog", true, nil},
	{"mirroredDatabases", "MirroredDatabase", true, nil},
	{"mlExperiments", "MLExperiment", false, nil},
	{"mlModels", "MLModel", false, nil},
	{"mountedDataFactories", "MountedDataFactory", true, nil},
	{"notebooks", "Notebook", true, []string{"RunNotebook"}},
	{"ontologies", "Ontology", true, nil},
	{"operationsAgents", "OperationsAgent", true, nil},
	{"orgApps", "OrgApp", true, nil},
	{"orgAppAudiences", "OrgAppAudience", true, nil},
	{"paginatedReports", "PaginatedReport", true, nil},
	{"plans", "Plan", true, nil},
	{"reflexes", TypeReflex, true, nil},
	{"reports", "Report", true, nil},
	{"semanticModels", "SemanticModel", true, nil},
	{"snowflakeDatabases", "SnowflakeDatabase", true, nil},
	{"sparkJobDefinitions", "SparkJobDefinition", true, []string{"sparkjob"}},
	{"sqlDatabases", "SQLDatabase", true, nil},
	{"userDataFunctions", "UserDataFunction", true, nil},
	{"variableLibraries", "VariableLibrary", true, nil},
	{"warehouses", "Warehouse", false, nil},
	{"warehouseSnapshots", "WarehouseSnapshot", false, nil},
}

// itemTypeOf returns the table's row of item type typ.
func itemTypeOf(typ string) (itemType, bool) {
	for _, t := range itemTypeTable {
		if t.typ == typ {
			return t, true
		}
	}
	return itemType{}, false
}

// jobTypes are the job types of item type typ the table knows (nil: none).
func jobTypes(typ string) []string {
	t, _ := itemTypeOf(typ)
	return t.jobs
}
