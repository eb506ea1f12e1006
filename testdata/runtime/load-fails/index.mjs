throw new Error('cannot load me');
