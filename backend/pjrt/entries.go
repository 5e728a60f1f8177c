package pjrt

// apiEntries are the first function-pointer fields of the PJRT_Api struct,
// in their ABI order (pjrt_c_api.h). Every one of them is called by the
// binding on the paths torchtpu uses, so a plugin must provide them all.
var apiEntries = []string{
	"PJRT_Error_Destroy", "PJRT_Error_Message", "PJRT_Error_GetCode",
	"PJRT_Plugin_Initialize", "PJRT_Plugin_Attributes",
	"PJRT_Event_Destroy", "PJRT_Event_IsReady", "PJRT_Event_Error", "PJRT_Event_Await", "PJRT_Event_OnReady",
	"PJRT_Client_Create", "PJRT_Client_Destroy", "PJRT_Client_PlatformName", "PJRT_Client_ProcessIndex",
	"PJRT_Client_PlatformVersion", "PJRT_Client_Devices", "PJRT_Client_AddressableDevices",
	"PJRT_Client_LookupDevice", "PJRT_Client_LookupAddressableDevice", "PJRT_Client_AddressableMemories",
	"PJRT_Client_Compile", "PJRT_Client_DefaultDeviceAssignment", "PJRT_Client_BufferFromHostBuffer",
	"PJRT_DeviceDescription_Id", "PJRT_DeviceDescription_ProcessIndex", "PJRT_DeviceDescription_Attributes",
	"PJRT_DeviceDescription_Kind", "PJRT_DeviceDescription_DebugString", "PJRT_DeviceDescription_ToString",
	"PJRT_Device_GetDescription", "PJRT_Device_IsAddressable", "PJRT_Device_LocalHardwareId",
	"PJRT_Device_AddressableMemories", "PJRT_Device_DefaultMemory", "PJRT_Device_MemoryStats",
	"PJRT_Memory_Id", "PJRT_Memory_Kind", "PJRT_Memory_DebugString", "PJRT_Memory_ToString",
	"PJRT_Memory_AddressableByDevices",
	"PJRT_Executable_Destroy", "PJRT_Executable_Name", "PJRT_Executable_NumReplicas",
	"PJRT_Executable_NumPartitions", "PJRT_Executable_NumOutputs",
	"PJRT_Executable_SizeOfGeneratedCodeInBytes", "PJRT_Executable_GetCostAnalysis",
	"PJRT_Executable_OutputMemoryKinds", "PJRT_Executable_OptimizedProgram", "PJRT_Executable_Serialize",
	"PJRT_LoadedExecutable_Destroy", "PJRT_LoadedExecutable_GetExecutable",
	"PJRT_LoadedExecutable_AddressableDevices", "PJRT_LoadedExecutable_Delete",
	"PJRT_LoadedExecutable_IsDeleted", "PJRT_LoadedExecutable_Execute",
	"PJRT_Executable_DeserializeAndLoad", "PJRT_LoadedExecutable_Fingerprint",
	"PJRT_Buffer_Destroy", "PJRT_Buffer_ElementType", "PJRT_Buffer_Dimensions",
	"PJRT_Buffer_UnpaddedDimensions", "PJRT_Buffer_DynamicDimensionIndices", "PJRT_Buffer_GetMemoryLayout",
	"PJRT_Buffer_OnDeviceSizeInBytes", "PJRT_Buffer_Device", "PJRT_Buffer_Memory", "PJRT_Buffer_Delete",
	"PJRT_Buffer_IsDeleted", "PJRT_Buffer_CopyToDevice", "PJRT_Buffer_ToHostBuffer", "PJRT_Buffer_IsOnCpu",
	"PJRT_Buffer_ReadyEvent",
}

// apiFarEntries are entry points past apiEntries that the binding calls
// unconditionally, with their index in the table: gopjrt asks every
// executable it compiles for its memory statistics.
var apiFarEntries = []struct {
	Index int
	Name  string
}{
	{96, "PJRT_Executable_GetCompiledMemoryStats"},
}

// APIMajor is the PJRT C API major version this build speaks; a plugin of
// another major version is refused.
const APIMajor = 0

// MinAPIMinor is the oldest minor version accepted: older plugins lack
// fields of argument structs the binding fills.
const MinAPIMinor = 40

// BindingAPIMinor is the minor version of the header the binding was built
// against (newer plugins are accepted: the C API is backward compatible).
const BindingAPIMinor = 81

// apiHeaderBytes is the offset of the first function pointer in PJRT_Api
// on a 64-bit ABI: struct_size, extension_start, then PJRT_Api_Version
// (struct_size, extension_start, major, minor).
const apiHeaderBytes = 8 + 8 + (8 + 8 + 4 + 4)
