import { z } from 'zod';

/**
 * What the user typed to name a hub repository: `owner/name`, or a hub URL of it (a page, a
 * file's `blob/` or `resolve/` link). The service reads the repository id out of it.
 */
export const HubRefSchema = z.string().trim().min(1).max(500);

/** A hub commit or branch: letters, digits, `.`, `_`, `-` (a commit sha, `main`). */
export const HubRevisionSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'a revision is a branch name or a commit sha');

/** A repository's file path as the hub lists it (`sub/Model-Q4_K_M.gguf`), never absolute or `..`. */
export const HubFilePathSchema = z
  .string()
  .min(1)
  .max(500)
  .refine((p) => !p.startsWith('/') && !p.split('/').includes('..') && !p.includes('\\'), {
    message: 'a file path inside the repository',
  });

/**
 * One thing of a repository that runs here, as the user picks it: a GGUF file (or a split set,
 * `…-00001-of-00002.gguf`, named by its first file), an ONNX variant of a Hugging Face ONNX
 * folder (its graph with the folder's config and tokenizer), or an onnxruntime-genai folder.
 */
export const HubChoiceSchema = z.object({
  /** The file that names it (the GGUF's first file, the ONNX graph, genai_config.json): what `hub.download` takes. */
  filePath: z.string(),
  kind: z.enum(['gguf', 'onnx', 'genai']),
  /** The model reference it will list under (`Model-Q4_K_M`, `Model-ONNX:q4`, `Model-ONNX-cpu:genai`). */
  modelName: z.string(),
  /** The quantization its name says (`Q4_K_M`, `F16`; an ONNX variant's name, `q4`), or null. */
  quant: z.string().nullable(),
  /** Every file it takes (one unless split). */
  numFiles: z.number().int().min(1),
  /** Bytes of all its files, as the hub lists them. */
  numBytes: z.number().int().min(0),
  /** Whether the hub gives a checksum for every file (an LFS sha256, a git blob id), so each is checked. */
  hasSha256: z.boolean(),
  /** Whether the models folder already holds it. */
  isInModelsFolder: z.boolean(),
});
export type HubChoice = z.infer<typeof HubChoiceSchema>;

/** A repository as the hub lists it: the commit it is at, what runs here, the room on disk. */
export const HubRepoSchema = z.object({
  repo: z.string(),
  /** The commit every file is fetched at (the hub's `sha`), so a resume gets the same bytes. */
  revision: z.string(),
  choices: z.array(HubChoiceSchema),
  /** Files it holds that are in no choice (a vision projector, safetensors, a README), counted. */
  numOtherFiles: z.number().int().min(0),
  /** Why its files may be refused (a gated repository: its terms and a token), or null. */
  accessNote: z.string().nullable(),
  /** Bytes free on the disk of the models folder now, or null when unknown. */
  freeBytes: z.number().int().min(0).nullable(),
});
export type HubRepo = z.infer<typeof HubRepoSchema>;

/**
 * Where a download is: `downloading` (bytes arriving, resumed after a drop), `verifying` (the
 * sha256 of a resumed part's first bytes, or the last check), `done` (verified and listed),
 * `failed` (with the reason; its `.part` is kept to resume unless the bytes were wrong),
 * `cancelled` (its `.part` removed).
 */
export const DOWNLOAD_STATES = ['downloading', 'verifying', 'done', 'failed', 'cancelled'] as const;
/** See DOWNLOAD_STATES. */
export type DownloadState = (typeof DOWNLOAD_STATES)[number];

/** One download from the hub, as the Add a model panel shows it. */
export const HubDownloadSchema = z.object({
  downloadId: z.string(),
  repo: z.string(),
  revision: z.string(),
  filePath: z.string(),
  modelName: z.string(),
  state: z.enum(DOWNLOAD_STATES),
  bytesDone: z.number().int().min(0),
  bytesTotal: z.number().int().min(0),
  /** Bytes a second over the last two seconds; null while checking or before that is measured. */
  bytesPerS: z.number().int().min(0).nullable(),
  /** A failed download whose parts are kept: `hub.download` of the same file and commit resumes it. */
  canResume: z.boolean(),
  /** Why it failed, in words, or null. */
  error: z.string().nullable(),
  /** Whether the hub's sha256 was checked (null until it is done). */
  isVerified: z.boolean().nullable(),
  /** Wall-clock epoch ms when it began. */
  startedAtWallMs: z.number(),
});
export type HubDownload = z.infer<typeof HubDownloadSchema>;

/**
 * What deleting a model from disk would remove (files or a folder, their bytes), or why it is
 * refused: bundled and other programs' models are not the app's to delete; a model loaded in a
 * slot or answering a request is unloaded first.
 */
export const ModelRemovalSchema = z.object({
  modelId: z.string(),
  /** Absolute paths it removes (a GGUF set's files, or a model folder). */
  paths: z.array(z.string()),
  numBytes: z.number().int().min(0),
  /** Why it cannot be deleted now, or null. */
  refusal: z.string().nullable(),
});
export type ModelRemoval = z.infer<typeof ModelRemovalSchema>;
