// The shapes of the Kubernetes, KubeVirt and CDI objects the console reads,
// narrowed to the fields it shows: the API server sends more, and every
// field is optional because a watch may deliver an object mid-creation.

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: { kind: string; name: string; uid?: string }[];
  managedFields?: unknown[];
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

export interface KubeList<T> {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string };
  items?: T[];
}

// Status is what the API server answers an error with, and what a watch
// sends as the object of an ERROR event.
export interface Status extends KubeObject {
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: StatusCause[];
  };
}

// StatusCause is one field a request was refused for; admission webhooks
// (KubeVirt's among them) report each violation as one.
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface Disk {
  name: string;
  disk?: { bus?: string };
  cdrom?: { bus?: string };
  lun?: unknown;
  bootOrder?: number;
}

export interface Volume {
  name: string;
  containerDisk?: { image?: string };
  dataVolume?: { name: string };
  persistentVolumeClaim?: { claimName: string };
  cloudInitNoCloud?: unknown;
  cloudInitConfigDrive?: unknown;
}

export interface DomainSpec {
  cpu?: { cores?: number; sockets?: number; threads?: number };
  memory?: { guest?: string };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  devices?: {
    disks?: Disk[];
    interfaces?: { name: string; model?: string; macAddress?: string }[];
    autoattachGraphicsDevice?: boolean;
    autoattachSerialConsole?: boolean;
  };
}

export interface VirtualMachineInstance extends KubeObject {
  spec?: { domain?: DomainSpec; volumes?: Volume[] };
  status?: {
    phase?: string;
    nodeName?: string;
    reason?: string;
    conditions?: Condition[];
    interfaces?: { name?: string; ipAddress?: string; ipAddresses?: string[]; mac?: string }[];
    guestOSInfo?: { name?: string; prettyName?: string; version?: string; kernelRelease?: string; id?: string };
    migrationState?: MigrationState;
  };
}

export interface VirtualMachine extends KubeObject {
  spec?: {
    running?: boolean;
    runStrategy?: string;
    instancetype?: { name: string; kind?: string };
    preference?: { name: string; kind?: string };
    template?: { spec?: { domain?: DomainSpec; volumes?: Volume[] } };
  };
  status?: {
    printableStatus?: string;
    ready?: boolean;
    created?: boolean;
    conditions?: Condition[];
  };
}

// MigrationState is a live migration's record, on the VMI and, for its own
// migration, on the VirtualMachineInstanceMigration. Upstream also nests
// the nodes in sourceState and targetState.
export interface MigrationState {
  migrationUid?: string;
  sourceNode?: string;
  targetNode?: string;
  sourcePod?: string;
  targetPod?: string;
  sourceState?: { node?: string; pod?: string };
  targetState?: { node?: string; pod?: string };
  startTimestamp?: string;
  endTimestamp?: string;
  completed?: boolean;
  failed?: boolean;
  abortRequested?: boolean;
  abortStatus?: string;
  failureReason?: string;
  mode?: string;
  migrationPolicyName?: string;
}

export interface VirtualMachineInstanceMigration extends KubeObject {
  spec?: { vmiName?: string; addedNodeSelector?: Record<string, string> };
  status?: {
    phase?: string;
    phaseTransitionTimestamps?: { phase?: string; phaseTransitionTimestamp?: string }[];
    migrationState?: MigrationState;
    conditions?: Condition[];
  };
}

export interface DataVolume extends KubeObject {
  spec?: {
    source?: Record<string, { url?: string; name?: string; namespace?: string } | undefined>;
    sourceRef?: { kind?: string; name?: string; namespace?: string };
    storage?: { resources?: { requests?: { storage?: string } } };
    pvc?: { resources?: { requests?: { storage?: string } } };
  };
  status?: {
    phase?: string;
    progress?: string;
    restartCount?: number;
    claimName?: string;
    conditions?: Condition[];
  };
}

export interface KubeEvent extends KubeObject {
  involvedObject?: { kind?: string; name?: string; namespace?: string };
  reason?: string;
  message?: string;
  type?: string;
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string;
  source?: { component?: string };
}

export interface DataSource extends KubeObject {
  spec?: { source?: { pvc?: { name?: string; namespace?: string }; snapshot?: { name?: string; namespace?: string } } };
  status?: { conditions?: Condition[] };
}
