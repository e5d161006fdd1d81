import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  AddKeyRequest,
  ChallengeRequest,
  ChallengeResponse,
  RemoveKeyQuery,
  SessionResponse,
  VerifyRequest,
  WhoAmIResponse,
} from '../../common/schemas/auth.js';
import { Operator } from '../../common/schemas/operators.js';
import type { Services } from '../context.js';
import { problemResponse } from '../http/access.js';

export const authRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { auth, operators, config } = services;
  const rateLimit = { max: config.authRateLimit, timeWindow: 60_000 };

  app.post(
    '/auth/challenge',
    {
      config: { access: 'public', audit: 'auth.challenge', rateLimit },
      schema: {
        tags: ['auth'],
        summary: 'Issue a nonce for the operator to sign',
        description: 'Sign the UTF-8 bytes of `message` with an Ed25519 key of the operator (raw, or `ssh-keygen -Y sign -n corral`). The nonce is single-use and valid 60 s.',
        body: ChallengeRequest,
        response: { 200: ChallengeResponse },
      },
    },
    async (request) => {
      request.auditOverride = { actor: request.body.operator_id, target: request.body.operator_id, details: {} };
      return auth.challenge(request.body.operator_id);
    },
  );

  app.post(
    '/auth/verify',
    {
      config: { access: 'public', audit: 'auth.verify', rateLimit },
      schema: {
        tags: ['auth'],
        summary: 'Verify the signed nonce and issue a session token',
        body: VerifyRequest,
        response: { 200: SessionResponse, 401: problemResponse('The nonce or the signature was not accepted') },
      },
    },
    async (request) => {
      request.auditOverride = { actor: request.body.operator_id, target: request.body.operator_id, details: {} };
      const { keyFingerprint, ...session } = auth.verify(request.body);
      request.auditOverride.details = { key_fingerprint: keyFingerprint };
      return session;
    },
  );

  app.get(
    '/auth/session',
    {
      config: { access: 'viewer' },
      schema: { tags: ['auth'], summary: 'Who the token belongs to, and when it expires', response: { 200: WhoAmIResponse } },
    },
    async (request) => {
      const session = request.auth!;
      return { operator: session.operator, expires_at: new Date(session.expiresAt).toISOString(), key_fingerprint: session.keyFingerprint };
    },
  );

  app.delete(
    '/auth/session',
    {
      config: { access: 'viewer', audit: 'auth.logout' },
      schema: { tags: ['auth'], summary: 'End the calling session (sign out)', response: { 204: { type: 'null', description: 'Signed out' } } },
    },
    async (request, reply) => {
      auth.logout(request.auth!.tokenHash);
      request.auditOverride = { target: request.auth!.operator.operator_id, details: {} };
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/auth/keys',
    {
      config: { access: 'viewer', audit: 'operator.key_add' },
      schema: {
        tags: ['auth'],
        summary: 'Add a public key to the calling operator',
        body: AddKeyRequest,
        response: { 200: Operator, 409: problemResponse('The key belongs to an operator already') },
      },
    },
    async (request) => {
      const me = request.auth!.operator.operator_id;
      const updated = operators.addKey(me, request.body.public_key);
      request.auditOverride = { target: me, details: { public_key: request.body.public_key.split(/\s+/).slice(0, 2).join(' ') } };
      return updated;
    },
  );

  app.delete(
    '/auth/keys',
    {
      config: { access: 'viewer', audit: 'operator.key_remove' },
      schema: {
        tags: ['auth'],
        summary: "Remove one of the calling operator's keys (its sessions end)",
        querystring: RemoveKeyQuery,
        response: { 200: Operator, 409: problemResponse('It is the only key') },
      },
    },
    async (request) => {
      const me = request.auth!.operator.operator_id;
      request.auditOverride = { target: me, details: { key_fingerprint: request.query.fingerprint } };
      return operators.removeKey(me, request.query.fingerprint);
    },
  );
};
