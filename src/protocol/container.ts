import { z } from 'zod';

/**
 * Metadata of a model container (DESIGN.md section 4.1): the UTF-8 JSON object that follows the
 * 17-byte header. Writers always write all four keys; readers accept any subset and keep unknown
 * keys as they are, so a newer writer's extra keys pass through an older reader.
 */
export const ContainerMetadata = z.looseObject({
  /** The program that wrote the container, e.g. 'parametricos'. */
  generator: z.string().optional(),
  /** The name of the GLB or glTF file the container was made from. */
  sourceFileName: z.string().optional(),
  /** The asset's size in bytes before compression; readers check it and stop inflating there. */
  byteLength: z.number().int().nonnegative().optional(),
  /** SHA-256 of the asset as 64 lowercase hex digits; readers check it. */
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'sha256 must be 64 lowercase hexadecimal digits')
    .optional(),
});
export type ContainerMetadata = z.infer<typeof ContainerMetadata>;
