// The content blocks of the messages a fake Anthropic server received, in order.
import type * as FakeProviders from "../../session/test/fakeProviders.ts"

export type Block = {
  type: string
  text?: string
  tool_use_id?: string
  content?: unknown
  is_error?: boolean
}

export const blocks = (request: FakeProviders.Request): Array<Block> =>
  request.body.messages.flatMap((message: { content: unknown }) =>
    Array.isArray(message.content) ? (message.content as Array<Block>) : []
  )
